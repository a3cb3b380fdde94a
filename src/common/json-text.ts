/** Rules for JSON text wherever it comes from: a request body, a line of facts. */

/**
 * Arrays and objects may nest this deep. Our bodies are flat; the limit only has to
 * keep recursive code downstream (validation, canonical JSON for payment binding)
 * far from the stack's end, which a 64 KiB body of brackets would otherwise reach.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * JSON may escape half a surrogate pair (`"\ud800"`), which is no character: UTF-8
 * cannot encode it and validators that URI-encode text throw on it. It becomes U+FFFD,
 * as a byte that is not UTF-8 already does when the body is decoded.
 */
export function wellFormed(_key: string, value: unknown): unknown {
  return typeof value === 'string' ? value.replace(LONE_SURROGATE, '\ufffd') : value;
}

const LONE_SURROGATE = /\p{Cs}/gu;

/**
 * Whether the brackets of JSON text nest deeper than `limit`, outside strings. Works
 * on UTF-8 bytes: no byte of a multi-byte character is an ASCII bracket or quote.
 */
export function nestsDeeperThan(text: Buffer, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const byte = text[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) {
      inString = true;
    } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > limit) return true;
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
      depth--;
    }
  }
  return false;
}

const [QUOTE, BACKSLASH, OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT] = [
  0x22, 0x5c, 0x5b, 0x5d, 0x7b, 0x7d,
];
