/**
 * What a query's wording says about the answer it wants, read from its words alone
 * (English), before any fact is looked at.
 */
export interface QueryForm {
  /**
   * The query is a list of content words rather than a question (no question word
   * first, no question mark): words a caller picked from a text, of which a fact may
   * hold only a few. Its close matches are cut more loosely (`Ranking`).
   */
  keywords: boolean;
  /**
   * The query asks for the holder before the present one ("the previous prime
   * minister", "who ran it before the current CEO"). Of facts on the same day, those
   * worded about a predecessor then come first, and otherwise last.
   */
  previous: boolean;
  /**
   * The words that name things ("Boeing", "RTVE", "Line 15"), space-separated: words
   * with a capital after the first word, acronyms anywhere, and numbers after such a
   * word. A short question's subject test is anchored on the fact that holds most of
   * them (`closeMatches` in ranking-sql.ts).
   */
  names: string;
}

const QUESTION_WORD =
  /^\s*(who|whom|whose|what|which|when|where|why|how|is|are|was|were|do|does|did|can|could|will|would|should|has|have|had|name|tell|list|give|find)\b/i;

/**
 * Words that point at a predecessor. Also used, as a PostgreSQL regular expression,
 * on the questions of facts (`order` in ranking-sql.ts), so it keeps to the syntax both
 * engines share: `\m`/`\M` are PostgreSQL's word bounds, `\b` JavaScript's.
 */
export const PREVIOUS_WORDS =
  'previous|previously|former|formerly|predecessor|preceded|preceding|before|prior|outgoing';

/**
 * Words of time relative to the asker: they say which of a subject's facts is wanted
 * (the order sees to that), not what the subject is, so they do not score (`terms` in
 * ranking-sql.ts, which stems them as it stems the query).
 */
export const TENSE_WORDS = `${PREVIOUS_WORDS.replace(/\|/g, ' ')} current currently today nowadays latest recent recently incumbent`;

/**
 * "Formerly" or "previously" before a name gives an old name of the subject ("the CEO of
 * X (formerly Twitter)"), not a predecessor of the holder: removed before the words
 * above are looked for. Case-sensitive, as only the capital tells a name; the same
 * syntax in both engines, as for PREVIOUS_WORDS (`order` in ranking-sql.ts).
 */
export const FORMER_NAME = '([Ff]ormerly|[Pp]reviously) +(?=[A-Z])';

const PREVIOUS = new RegExp(`\\b(${PREVIOUS_WORDS})\\b`, 'i');
const FORMER_NAMES = new RegExp(FORMER_NAME, 'g');

/** Whether `text` (a query, or a fact's question) speaks of a predecessor. */
export function namesPredecessor(text: string): boolean {
  return PREVIOUS.test(text.replace(FORMER_NAMES, ''));
}

/** The form of `query` (see `QueryForm`). */
export function queryForm(query: string): QueryForm {
  return {
    keywords: !QUESTION_WORD.test(query) && !/\?\s*$/.test(query),
    previous: namesPredecessor(query),
    names: namingWords(query),
  };
}

/** See `QueryForm.names`. The first word is capitalised as any sentence's is. */
function namingWords(query: string): string {
  const names: string[] = [];
  let afterName = false;
  (query.match(/[\p{L}\p{N}][\p{L}\p{N}'’.-]*/gu) ?? []).forEach((word, i) => {
    const name =
      (i > 0 && /^\p{Lu}/u.test(word)) ||
      /^\p{Lu}[\p{Lu}\p{N}-]*\p{Lu}/u.test(word) ||
      (afterName && /^\p{N}/u.test(word));
    if (name) names.push(word);
    afterName = name;
  });
  return names.join(' ');
}
