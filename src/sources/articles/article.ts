import { parseHTML } from 'linkedom';
import { Published } from './published';

/** An article's main text with what is known about it, before facts are extracted. */
export interface Article {
  url: string;
  title: string;
  published?: Published;
  text: string;
}

/** A body that is not what its source's kind promises. */
export class ArticleFormatError extends Error {}

/** Collapses the whitespace of extracted text, keeping paragraph breaks. */
export function tidyText(text: string): string {
  return text
    .replace(/\r/g, '')
    .split(/\n\s*\n/)
    .map((paragraph) => paragraph.replace(/\s+/g, ' ').trim())
    .filter(Boolean)
    .join('\n\n');
}

/**
 * The text of an HTML fragment with a paragraph break after each block: the DOM's
 * `textContent` runs paragraphs together ("season.Pochettino was sacked").
 */
export function textOfHtml(html: string): string {
  const spaced = html
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/(?:p|div|h[1-6]|li|blockquote|section|article|figcaption|tr)>/gi, '$&\n\n');
  const { document } = parseHTML(`<html><body>${spaced}</body></html>`) as unknown as {
    document: { body: { textContent: string | null } };
  };
  return document.body.textContent ?? '';
}
