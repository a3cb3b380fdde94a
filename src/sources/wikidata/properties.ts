/**
 * The Wikidata properties that become facts, and the question each asks. `{subject}`
 * is the entity's English label. Properties not listed here are ignored.
 *
 * `item` values are other entities, answered by their label; `quantity` values are
 * amounts, answered as a number.
 */
export interface PropertyTemplate {
  question: string;
  value: 'item' | 'quantity';
}

export const PROPERTIES: Record<string, PropertyTemplate> = {
  P6: { question: 'Who is the head of government of {subject}?', value: 'item' },
  P35: { question: 'Who is the head of state of {subject}?', value: 'item' },
  P286: { question: 'Who is the head coach of {subject}?', value: 'item' },
  P169: { question: 'Who is the chief executive officer of {subject}?', value: 'item' },
  P488: { question: 'Who is the chairperson of {subject}?', value: 'item' },
  P1308: { question: 'Who holds the office of {subject}?', value: 'item' },
  P39: { question: 'What position does {subject} hold?', value: 'item' },
  P26: { question: 'Who is the spouse of {subject}?', value: 'item' },
  P54: { question: 'Which sports team does {subject} play for?', value: 'item' },
  P551: { question: 'Where does {subject} live?', value: 'item' },
  P1082: { question: 'What is the population of {subject}?', value: 'quantity' },
};

/** Qualifiers that date a statement, in the order they are preferred. */
export const START_TIME = 'P580';
export const POINT_IN_TIME = 'P585';
export const END_TIME = 'P582';
/** A reference's URL: it becomes one of the fact's sources. */
export const REFERENCE_URL = 'P854';
