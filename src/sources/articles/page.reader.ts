import { Readability } from '@mozilla/readability';
import { parseHTML } from 'linkedom';
import { Article, ArticleFormatError, textOfHtml, tidyText } from './article';
import { parsePublished, Published } from './published';

/** Less main text than this is a navigation page, a paywall or a failed extraction. */
const MIN_TEXT = 200;

/** Where publishers put the publication date, in order of trust. */
const DATE_META = [
  'meta[property="article:published_time"]',
  'meta[property="article:published"]',
  'meta[itemprop~="datePublished"]',
  'meta[name="pubdate"]',
  'meta[name="publish-date"]',
  'meta[name="date"]',
  'meta[name="DC.date.issued"]',
  'meta[property="og:published_time"]',
];

/**
 * The main text of an article page (Mozilla's Readability on a parsed, never
 * rendered, document) and its publication date from the page's metadata.
 */
export function readPage(html: string, url: string): Article {
  const { document } = parseHTML(html) as unknown as { document: ParsedDocument };
  const published = publishedOf(document);
  // Readability changes the document it reads, so the dates are taken first.
  const article = new Readability(document).parse();
  const text = tidyText(textOfHtml(article?.content ?? ''));
  if (text.length < MIN_TEXT) {
    throw new ArticleFormatError(`no article text found (${text.length} characters of main text)`);
  }
  return {
    url,
    title: tidyText(article?.title ?? ''),
    published: parsePublished(article?.publishedTime) ?? published,
    text,
  };
}

/** The little of linkedom's DOM used here (its own types need the DOM library). */
interface ParsedDocument {
  querySelector(selector: string): { getAttribute(name: string): string | null } | null;
}

function publishedOf(document: ParsedDocument): Published | undefined {
  for (const selector of DATE_META) {
    const published = parsePublished(document.querySelector(selector)?.getAttribute('content'));
    if (published) return published;
  }
  return parsePublished(document.querySelector('time[datetime]')?.getAttribute('datetime'));
}
