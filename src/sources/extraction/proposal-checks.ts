/** A question/answer pair a model proposed, before it is trusted. */
export interface Proposal {
  question: string;
  answer: string;
}

export type Rejection =
  | 'malformed completion'
  | 'too long'
  | 'not a question'
  | 'not self-contained'
  | 'answer not in the text'
  | 'subject not in the text';

export const MAX_QUESTION = 200;
export const MAX_ANSWER = 120;
const MAX_ANSWER_WORDS = 15;

// A question that leans on the article, or on the day it was written, cannot stand alone.
const LEANS_ON_ARTICLE =
  /\b(?:this|that|the) (?:article|story|report|text|piece|passage|document|post|interview|author|writer)\b|\b(?:mentioned|aforementioned)\b|\baccording to (?:the|this)\b/i;
const RELATIVE_TIME =
  /\b(?:today|tonight|yesterday|tomorrow|recently|this (?:week|month|year|weekend|morning)|last (?:week|month|year|night|weekend)|next (?:week|month|year))\b/i;
const PRONOUN = /\b(?:he|she|him|his|her|hers|they|them|their|it|its)\b/i;

/**
 * Why a proposal must not become a fact, or undefined when it may: it must be a
 * terse question that names what it asks about, whose subject and answer the
 * article's text states.
 */
export function rejectionOf(proposal: Proposal, text: string): Rejection | undefined {
  const question = proposal.question.trim();
  const answer = proposal.answer.trim();
  if (
    question.length > MAX_QUESTION ||
    answer.length > MAX_ANSWER ||
    answer.split(/\s+/).length > MAX_ANSWER_WORDS
  ) {
    return 'too long';
  }
  if (!question.endsWith('?') || !answer) return 'not a question';
  const names = namesIn(question);
  if (
    LEANS_ON_ARTICLE.test(question) ||
    RELATIVE_TIME.test(question) ||
    PRONOUN.test(question) ||
    names.length === 0
  ) {
    return 'not self-contained';
  }
  const sentences = sentencesOf(text);
  if (!supports(sentences, tokens(answer))) return 'answer not in the text';
  if (!names.some((name) => sentences.some((sentence) => sentence.includes(name)))) {
    return 'subject not in the text';
  }
  return undefined;
}

/** Capitalised words after the first, and numbers: what makes a question specific. */
function namesIn(question: string): string[] {
  const words = question.split(/\s+/).slice(1);
  return words
    .filter((word) => /^[\p{Lu}\d]/u.test(word))
    .flatMap((word) => tokens(word))
    .filter((token) => token.length > 1);
}

/**
 * The answer's words all occur in one passage of the text, in any order (after
 * case, accents and punctuation are set aside).
 */
function supports(sentences: string[][], answer: string[]): boolean {
  if (answer.length === 0) return false;
  return sentences.some((sentence) => answer.every((word) => sentence.includes(word)));
}

/** Each sentence with the next: "Mr. Smith" must not split a name across two. */
function sentencesOf(text: string): string[][] {
  const sentences = text.split(/(?<=[.!?])\s+|\n+/).map(tokens);
  return sentences.map((sentence, i) => [...sentence, ...(sentences[i + 1] ?? [])]);
}

function tokens(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/['’]s\b/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}
