import Parser from 'rss-parser';
import { Article, ArticleFormatError, textOfHtml, tidyText } from './article';
import { parsePublished } from './published';

type Item = Parser.Item & { 'content:encoded'?: string; summary?: string };

const parser = new Parser<Record<string, unknown>, Item>();

/**
 * The articles of an RSS or Atom feed: each item's text as the feed carries it
 * (full content where given, else the summary), its link resolved against the
 * feed's, and its date read from the item's metadata.
 */
export async function readFeed(xml: string, feedUrl: string): Promise<Article[]> {
  let feed: Parser.Output<Item>;
  try {
    feed = await parser.parseString(tolerant(xml));
  } catch (err) {
    throw new ArticleFormatError(`not an RSS or Atom feed (${firstLine((err as Error).message)})`);
  }
  const base = absolute(feed.link, feedUrl) ?? feedUrl;
  return feed.items.flatMap((item) => {
    const url = absolute(item.link, base) ?? absolute(item.guid, base);
    const title = tidyText(item.title ?? '');
    const body = tidyText(
      textOfHtml(item['content:encoded'] ?? item.content ?? item.summary ?? ''),
    );
    if (!url || !(title || body)) return [];
    const published = parsePublished(item.pubDate) ?? parsePublished(item.isoDate);
    return [{ url, title, published, text: [title, body].filter(Boolean).join('\n\n') }];
  });
}

/**
 * Real feeds break the XML rules in small ways that strict parsers refuse: text
 * before the XML declaration (TechCrunch), an `<rss>` without a version (UOL).
 */
function tolerant(xml: string): string {
  return xml.trimStart().replace(/<rss(?![^>]*\bversion=)(\s|>)/, '<rss version="2.0"$1');
}

function absolute(link: string | undefined, base: string): string | undefined {
  if (!link?.trim()) return undefined;
  try {
    const url = new URL(link.trim(), base);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function firstLine(message: string): string {
  return message.split('\n')[0];
}
