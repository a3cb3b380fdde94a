/**
 * Text of a fetched body. The charset is taken from the Content-Type, else from the
 * document's own declaration (XML prolog, HTML meta); without either, UTF-8 if the
 * bytes are valid UTF-8, else Windows-1252, which is what undeclared Latin-1 feeds
 * such as UOL's turn out to be.
 */
export function decodeBody(body: Buffer, contentType = ''): string {
  const declared = charsetOf(contentType) ?? declaredInDocument(body);
  if (declared) {
    try {
      return stripBom(new TextDecoder(declared).decode(body));
    } catch {
      // An unknown charset label: fall through to sniffing.
    }
  }
  try {
    return stripBom(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    return new TextDecoder('windows-1252').decode(body);
  }
}

function charsetOf(contentType: string): string | undefined {
  return /charset\s*=\s*"?([\w.:-]+)/i.exec(contentType)?.[1];
}

function declaredInDocument(body: Buffer): string | undefined {
  const head = body.subarray(0, 2048).toString('latin1');
  return (
    /^\s*<\?xml[^>]*encoding\s*=\s*["']([\w.:-]+)["']/i.exec(head)?.[1] ??
    /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(head)?.[1]
  );
}

function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}
