import { LlmSettings } from '../../config/config';
import { FactDto } from '../../facts/fact.dto';
import { Article } from '../articles/article';
import { MAX_ANSWER, MAX_QUESTION, Proposal, Rejection, rejectionOf } from './proposal-checks';

export interface Extraction {
  facts: FactDto[];
  rejected: Rejection[];
}

/** The chat API failed (down, timed out, refused): the article stays pending. */
export class ExtractorUnavailableError extends Error {}

/** Article text beyond this is not sent: news leads carry the facts, and tokens cost. */
const MAX_TEXT_CHARS = 12_000;
const MAX_FACTS = 12;

const INSTRUCTIONS = `You extract facts from a news article for a database that answers questions.
Return at most ${MAX_FACTS} facts the article states, each a question and its answer.
- The question must stand alone for a reader who has not seen the article: name people,
  organisations and places in full; no pronouns; no "the article"; no relative time
  such as "last week" or "this year".
- The answer is terse: a name, a number, a place, a short phrase, in the article's words.
- Only facts that the text states; do not add what you know.
- Do not put dates in answers that the question does not ask for.`;

/** JSON Schema of the structured output. */
const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['facts'],
  properties: {
    facts: {
      type: 'array',
      maxItems: MAX_FACTS,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['question', 'answer'],
        properties: {
          question: { type: 'string', maxLength: MAX_QUESTION },
          answer: { type: 'string', maxLength: MAX_ANSWER },
        },
      },
    },
  },
};

/**
 * Question/answer facts from an article, proposed by an LLM behind any
 * OpenAI-compatible chat API and each checked before it is kept. The date is the
 * article's publication day from its metadata, never one the model gives.
 */
export class LlmExtractor {
  constructor(private readonly settings: LlmSettings) {}

  async extract(article: Article): Promise<Extraction> {
    const content = await this.complete(article);
    const proposals = parseProposals(content);
    if (!proposals) return { facts: [], rejected: ['malformed completion'] };
    const facts: FactDto[] = [];
    const rejected: Rejection[] = [];
    for (const proposal of proposals) {
      const rejection = rejectionOf(proposal, article.text);
      if (rejection) rejected.push(rejection);
      else
        facts.push({
          question: proposal.question.trim(),
          answer: proposal.answer.trim(),
          true_by: article.published?.day ?? null,
          sources: [article.url],
        });
    }
    return { facts, rejected };
  }

  /** The message content of one chat completion; throws ExtractorUnavailableError. */
  private async complete(article: Article): Promise<unknown> {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.settings.apiKey) headers.authorization = `Bearer ${this.settings.apiKey}`;
    const request = {
      model: this.settings.model,
      temperature: 0,
      messages: [
        { role: 'system', content: INSTRUCTIONS },
        { role: 'user', content: articleMessage(article) },
      ],
      response_format: {
        type: 'json_schema',
        json_schema: { name: 'facts', strict: true, schema: SCHEMA },
      },
    };
    const response = await fetch(`${this.settings.url}/chat/completions`, {
      method: 'POST',
      headers,
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(this.settings.timeoutMs),
    }).catch((err: Error) => {
      throw new ExtractorUnavailableError(`chat API unreachable: ${err.message}`);
    });
    if (!response.ok) {
      await response.body?.cancel();
      throw new ExtractorUnavailableError(`chat API answered ${response.status}`);
    }
    const body = (await response.json().catch(() => undefined)) as
      { choices?: { message?: { content?: unknown } }[] } | undefined;
    return body?.choices?.[0]?.message?.content;
  }
}

function articleMessage(article: Article): string {
  return [
    `Title: ${article.title}`,
    article.published ? `Published: ${article.published.day}` : '',
    '',
    article.text.slice(0, MAX_TEXT_CHARS),
  ].join('\n');
}

/** The proposals of a completion, or undefined when it is not the promised shape. */
function parseProposals(content: unknown): Proposal[] | undefined {
  if (typeof content !== 'string') return undefined;
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch {
    return undefined;
  }
  const facts = (json as { facts?: unknown } | null)?.facts;
  if (!Array.isArray(facts)) return undefined;
  const valid = facts.every(
    (fact: unknown) =>
      typeof (fact as Proposal)?.question === 'string' &&
      typeof (fact as Proposal)?.answer === 'string',
  );
  return valid ? (facts as Proposal[]) : undefined;
}
