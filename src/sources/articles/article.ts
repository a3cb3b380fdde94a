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
