/**
 * How the one ranking query weighs and cuts. Calibrated on
 * corpus/queries-dev.jsonl with `bin/freshfacts eval --sweep`; see
 * corpus/README.md ("Calibration") for the method and the figures.
 */
export interface Ranking {
  /** Weight of cosine similarity in the fused score; the rest is lexical coverage. */
  semanticWeight: number;
  /** A query term found only in the answer counts this much of one found in the question. */
  answerWeight: number;
  /** Fused score a fact needs to "match closely". Below it everywhere: nearest facts instead. */
  closeThreshold: number;
  /** A close match must also score at least this share of the best match's score. */
  relativeThreshold: number;
  /**
   * The same share for a query of keywords rather than a question (`QueryForm`): a fact
   * that holds a few of a caller's chosen words is as likely the one meant as the fact
   * that holds the most, so the close set takes the k best above this share instead of
   * the one strongest match (dev rtqa-evidence recall@10 at k 10: 0.867 at 0.7, 0.900 at
   * 0.5, 0.933 from 0.3 to 0.4, once short questions had the subject test).
   */
  keywordRelativeThreshold: number;
  /**
   * The same share for a long question (more than `shortQuestionTerms` terms: a news
   * quiz's), which, as keywords are, is answered by facts that each share a different
   * part of it ("Which show took home the award for outstanding drama series at this
   * year's Emmy Awards?" by "Which Netflix series took home the most Emmys this week?",
   * at half the best score): dev paired-question recall@10 0.917 → 0.958 at 0.4–0.5,
   * 100k 0.771 → 0.854 at 0.5–0.55, first answers unchanged.
   */
  longQuestionRelativeThreshold: number;
  /**
   * And hold at least this share of the best lexical score among the candidates: a
   * fact that only resembles the question in meaning (same topic, none of its rarer
   * words) is no close match while others share its words. Without it, newer facts on
   * the same topic crowded the answer out of newest-first lists once the corpus reached
   * 2026 (dev recall@10 0.924 → 0.914; with it 0.931, first answers unchanged).
   */
  lexicalShare: number;
  /**
   * A query term weighs its IDF to this power in the lexical score and in picking the
   * lexical candidates. Above 1, the query's rare terms (the names of its subject) weigh
   * more than its common ones together (the words of a question template), so that facts
   * about another subject that share the template stop counting as close matches.
   */
  termRarityPower: number;
  /**
   * A short question's close match holds at least this share of the weight of the query
   * terms the best match holds: it is about the same subject (`closeMatches` in
   * ranking-sql.ts). Any share from 0.1 to 0.3 gave the same dev figures.
   */
  subjectShare: number;
  /**
   * A question of at most this many terms is short: a subject and a relation. From 4 to
   * 8 gave the same dev figures; from 10 the long questions of news quizzes lose answers
   * that share none of the best match's words (rtqa-paired recall@10 0.917 → 0.896).
   */
  shortQuestionTerms: number;
  /**
   * A short question's fact below the relative bar is still a close match when it is a
   * differently worded sibling of the best match: it holds at least this share of the
   * best match's naming weight (the same subject) and `siblingWording` of its wording
   * (`closeMatches` in ranking-sql.ts). 0.35 to 0.4 gave the same dev figures; 0.3 let
   * in "GCR Class 11E" for "LMS Ivatt Class 4", 0.45 lost a fact naming its subject by
   * the surname alone.
   */
  siblingNames: number;
  /**
   * The share, by IDF, of the best match's own question words (beyond the query's,
   * numbers aside) that such a sibling's question holds: the same relation, worded
   * alike ("terminal station" for "terminus" in "Beijing Subway's … Line 15 …"). Any
   * share from 0.2 to 0.5 gave the same dev figures.
   */
  siblingWording: number;
  /**
   * Of the lexical candidates, at most this share (rounded up) hold the same query
   * terms, the newest of them: at 100k facts one news quiz's question, name-swapped a
   * hundred times, filled all twenty places with the same words and left none for the
   * fact holding the query’s rarer ones (recall@10 against distractors 0.914 → 0.931 at
   * 0.2 and 0.3, 0.917 at 0.5, 0.921 at 0.1; dev figures the same from 0.1 to 1). A
   * subject's facts worded alike keep their newest, as the timeline shows them.
   */
  sameTermsShare: number;
  /**
   * The share is kept among this many times the places, the best by weight (see
   * `lexicalCandidates`): 10 gave the same figures as all selected facts at 100k and
   * one answer fewer at 1M (0.883 against 0.886), at 2% of a search's time instead of
   * 40% there.
   */
  sameTermsReach: number;
  /**
   * The lexical score of a long keyword query (more than `shortQuestionTerms` words: an
   * article's content words) is the weight, by plain IDF as they are drawn, of its words
   * a fact holds against this share of the weight of all of them, or against the best
   * candidate's where that holds more. Such words are seldom half in any one fact:
   * against their whole weight (and cubed IDF) the lexical scores stayed small, and the
   * cosine of a static encoder decided alone between facts holding two words of the text
   * and facts holding none (dev article-word recall@10 0.933 → 0.967, 100k 0.934 → 0.938,
   * 1M 0.890 → 0.893, the same from 0 to 0.5; 0.65 loses one, the whole weight three).
   * Below one half, more queries whose best fact holds a word or two would count as
   * matched closely rather than "nearest". A short keyword query names a subject and a
   * relation as a short question does and is scored as one: "current prime minister of
   * Canada" by plain IDF let Japan's newer prime ministers come first.
   */
  keywordCoverage: number;
  /** Terms in more than this share of facts do not select lexical candidates (they still score). */
  commonTermShare: number;
  /**
   * Nor do the commoner terms once the rarer ones select this many facts together, or
   * `termFactsShare` of the facts where that is more: each selecting fact is read and
   * summed on every query, so this bounds the full-text side's cost. The rarest terms
   * select first, and a term that would overrun the budget selects nothing.
   */
  termFactsBudget: number;
  /**
   * The budget grows with the corpus: at 1M facts a subject's name may be in a thousand
   * facts and still tell them apart ("Servant of the People": 1,469), and a fixed cap of
   * 1,000 a term left such a question with no candidate of its subject. 2% (20,000 facts
   * at 1M) moved 1M recall@10 0.797 → 0.879 at about 5 ms a search more there, 4% 0.893
   * at 10 ms; at 100k and on the dev set it changes no figure and no speed (2,000 floor).
   */
  termFactsShare: number;
  /**
   * The commoner terms past that budget, as many as hold at most this share of the
   * facts together with the selecting ones, select nothing but add their weight to the
   * selected facts holding them (`lexicalCandidates`). 5% moved 1M recall@10 0.910 →
   * 0.931, at +50–64% of the statement's time there (+86–92% on a slower machine;
   * bench/README.md). Only where the budget is the share, not its floor
   * (RankingRepository): at 100k it would move one dev query for 20–35% of the
   * statement.
   */
  termBoostShare: number;
  /**
   * A date window is scanned (bits of the vectors over the day index, then exactly)
   * when it holds at most √(scanWindowFactor × dated facts) facts; a wider one goes
   * through the HNSW index with an iterative scan (see `semanticCandidates`). A scan
   * costs in proportion to the window, a filtered walk of the graph in proportion to the
   * share of facts it must pass over (all / window), so they cross where the window's
   * square is a multiple of the corpus: measured about 10k–13k facts at 100k, 40k at
   * 1M (bench/README.md).
   */
  scanWindowFactor: number;
  /**
   * A wider window takes at most this many semantic candidates from its walk of the
   * HNSW graph: every fact the walk passes costs a page read to test its day, so the
   * walk is kept short (the full-text side still brings its own candidates).
   */
  wideWindowCandidates: number;
  /** Where candidates come from; only `eval` compares the single sides. */
  sides: 'both' | 'lexical' | 'semantic';
}

/** For the Universal Sentence Encoder (and an OpenAI-compatible API, not calibrated apart). */
export const ENCODER_RANKING: Ranking = {
  semanticWeight: 0.3,
  answerWeight: 0.2,
  closeThreshold: 0.15,
  relativeThreshold: 0.7,
  keywordRelativeThreshold: 0.4,
  longQuestionRelativeThreshold: 0.5,
  lexicalShare: 0,
  termRarityPower: 3,
  subjectShare: 0.2,
  shortQuestionTerms: 6,
  siblingNames: 0.4,
  siblingWording: 0.3,
  sameTermsShare: 0.2,
  sameTermsReach: 10,
  keywordCoverage: 0.5,
  commonTermShare: 0.1,
  termFactsBudget: 2000,
  termFactsShare: 0.02,
  termBoostShare: 0.05,
  scanWindowFactor: 1600,
  wideWindowCandidates: 50,
  sides: 'both',
};

/**
 * For the distilled static model, swept on the dev queries (2026-11-25); the full
 * encoder shares its calibration (measured, not swept apart: corpus/README.md).
 */
export const STATIC_RANKING: Ranking = { ...ENCODER_RANKING };

/** The calibration for the encoder that made the vectors (`Embedder.model`). */
export function rankingFor(model: string): Ranking {
  return model.startsWith('static-') ? STATIC_RANKING : ENCODER_RANKING;
}

/**
 * Candidates drawn from each side (lexical, semantic) before fusion. Each is read
 * and scored, the bulk of a search's work. Fewer candidates also mean fewer near
 * misses that can outscore the answer: k a side (at least 20) against 2·k (at least
 * 40) raised recall@10 from 0.914 to 0.924 on the dev queries and from 0.624 to 0.679
 * at 100k facts, first answers unchanged (bench/README.md). A question's long series
 * of values, which ties on both sides, is reached by its newest members instead (see
 * `series` in ranking-sql.ts), so it needs no wider draw.
 */
export function candidatesFor(k: number): number {
  return Math.max(20, k);
}
