import { candidatesFor, Ranking } from './ranking';
import { FORMER_NAME, PREVIOUS_WORDS, QueryForm, queryForm, TENSE_WORDS } from './query-form';
import { searchText } from './search-text';

/**
 * The ranking statement, one function per stage, each returning its CTEs' text:
 *
 *   terms → lexicalCandidates ┐
 *           semanticCandidates ┴→ drawn → series → scoring → fuse → closeMatches → order
 *
 * `candidateStatement` composes the stages up to `scoring` (what `eval --sweep`
 * calibrates on), `rankingStatement` all of them (what a search runs). The stages
 * after scoring have a mirror in memory, of the same names, in evaluation.ts; the
 * statement as rendered for each window path is checked in under src/facts/sql/.
 * RankingRepository only runs the statements.
 */

/** One search as the ranking statement takes it. */
export interface FactSearch {
  query: string;
  vector: Float32Array;
  k: number;
  timeline: boolean;
  /** Inclusive lower bound, `YYYY-MM-DD`. */
  minDay?: string;
  /** Inclusive upper bound, `YYYY-MM-DD`. */
  maxDay?: string;
}

/** No date window; a window scanned through the day index; one walked through the graph. */
export type WindowPath = 'none' | 'scan' | 'wide';

/** What the stages share: the parameters bound so far and the search's fragments. */
interface Parts {
  /** The search text, `$n`. */
  query: string;
  /** The query's naming words (`QueryForm.names`), `$n`. */
  names: string;
  /** Whether the query is keywords (`QueryForm.keywords`), `$n`. */
  keywords: string;
  /** The query vector as int4[], `$n`. */
  vector: string;
  /** The query vector as a vector, computed once (see `semanticCandidates`). */
  v: string;
  /** The date bounds on a column, each ` AND …`; empty without a window. */
  window: (day: string) => string;
  /** The date bounds on a fact's `true_by` (`f.true_by`). */
  within: string;
  /** The k of the search, as statement text. */
  k: string;
}

/**
 * The candidates of `search` with both relevance signals apart, before fusion and cut,
 * ending in the CTE `scored`: one row per candidate with `cos` and `lex` in 0..1.
 * Returns the statement and its parameters. `form` is the query's, passed in when the
 * caller has read it already.
 */
export function candidateStatement(
  search: FactSearch,
  ranking: Ranking,
  path: WindowPath,
  form: QueryForm = queryForm(search.query),
): [string, unknown[]] {
  const perSide = candidatesFor(search.k);
  const params: unknown[] = [];
  const $ = (value: unknown) => `$${params.push(value)}`;
  const [query, vector] = [$(searchText(search.query)), $(quantise(search.vector))];
  const names = $(searchText(form.names));
  const keywords = `${$(form.keywords)}::boolean`;
  const [minDay, maxDay] = [search.minDay, search.maxDay].map((day) => day && `${$(day)}::date`);
  const window = (day: string) =>
    (minDay ? ` AND ${day} >= ${minDay}` : '') + (maxDay ? ` AND ${day} <= ${maxDay}` : '');
  const parts: Parts = {
    query,
    names,
    keywords,
    vector,
    v: `(SELECT ${vector}::int4[]::vector)`,
    window,
    within: window('f.true_by'),
    k: int(search.k),
  };
  const lexicalLimit = ranking.sides === 'semantic' ? 0 : perSide;
  const semanticLimit = int(
    ranking.sides === 'lexical'
      ? 0
      : path === 'wide'
        ? Math.min(perSide, ranking.wideWindowCandidates)
        : perSide,
  );
  const sql = `
    WITH ${terms(parts, ranking)},
    ${lexicalCandidates(parts, ranking, lexicalLimit)},
    ${semanticCandidates(parts, path, semanticLimit)},
    ${drawn(parts)},
    ${series(parts)},
    ${scoring(parts, ranking)}`;
  return [sql, params];
}

/** The whole ranking statement of `search` and its parameters. */
export function rankingStatement(
  search: FactSearch,
  ranking: Ranking,
  path: WindowPath,
): [string, unknown[]] {
  const form = queryForm(search.query);
  const [sql, params] = candidateStatement(search, ranking, path, form);
  // The query's form and the order are parameters, not text, as no plan depends on
  // them: each distinct text is planned and its plan kept (about 0.5 MB) by every
  // pooled connection of a server. With them in the text the bench's searches made 76
  // statements (33 MB of plans per connection at 100k), without them 12 (6 MB).
  const $ = (value: unknown) => `$${params.push(value)}`;
  return [
    `${sql},
    ${fuse(ranking)},
    ${closeMatches(
      ranking,
      `${$(relativeThreshold(ranking, form, false))}::float8`,
      `${$(relativeThreshold(ranking, form, true))}::float8`,
      `${$(subjectShare(ranking, form))}::float8`,
      `${$(siblingWording(ranking, form))}::float8`,
      search.k,
    )}
    ${order(`${$(search.timeline)}::boolean`, `${$(form.previous)}::boolean`, search.k)}`,
    params,
  ];
}

/**
 * The query's lexemes with their weight (IDF to `termRarityPower`), whether each is
 * rare enough to select candidates (the rarest first, within the budget of facts they
 * may select together: `Ranking.termFactsBudget`), and whether it is one of the query's
 * naming words.
 */
function terms(parts: Parts, ranking: Ranking): string {
  const [commonShare, budget] = [float(ranking.commonTermShare), int(ranking.termFactsBudget)];
  // Whether the term is among the rarest that hold at most `share` of the facts together.
  const withinShare = (share: number) => `coalesce(s.ndoc, 0) <= c.facts * ${commonShare}
               AND sum(coalesce(s.ndoc, 0)) OVER (ORDER BY coalesce(s.ndoc, 0), t.lexeme)
                   <= greatest(${budget}, c.facts * ${float(share)})`;
  // Past the selecting terms, the commoner ones that add their weight (`lexicalCandidates`).
  const boosting = boosts(ranking)
    ? `             ${withinShare(ranking.termBoostShare)} AS boosting,
`
    : '';
  return `terms AS (
      SELECT t.lexeme,
             -- float8: numeric arithmetic costs milliseconds per query in WASM
             ${idf('s.ndoc')} AS idf,
             power(${idf('s.ndoc')},
                   ${float(ranking.termRarityPower)}) AS weight,
             ${withinShare(ranking.termFactsShare)} AS selective,
${boosting}             n.named, w.spellings,
             ${anyOf('w.spellings', "''")} AS any_field,
             ${anyOf('w.spellings', "':A'")} AS in_question
      FROM unnest(tsvector_to_array(to_tsvector('english', ${parts.query}))) AS t(lexeme)
      CROSS JOIN corpus_stats c
      LEFT JOIN lexeme_stats s ON s.lexeme = t.lexeme
      CROSS JOIN LATERAL (
        SELECT t.lexeme = ANY (tsvector_to_array(to_tsvector('english', ${parts.names}))) AS named
      ) n
      CROSS JOIN LATERAL (
        SELECT CASE WHEN n.named AND coalesce(s.ndoc, 0) <= 2 AND length(t.lexeme) >= 6
                         AND t.lexeme ~ '^[a-z]+$'
                    THEN ${spellings('t.lexeme', 'coalesce(s.ndoc, 0)')}
                    ELSE ARRAY[t.lexeme] END AS spellings
        OFFSET 0 -- worked out once, not again where each use of it is inlined
      ) w
      -- Words of time relative to the asker ("today", "the current one") say which of
      -- a subject's facts is wanted, not what the subject is: the order sees to them.
      WHERE t.lexeme <> ALL (tsvector_to_array(to_tsvector('english', '${TENSE_WORDS}')))
    )`;
}

/** Whether the commoner terms past the budget add their weight (`Ranking.termBoostShare`). */
function boosts(ranking: Ranking): boolean {
  return ranking.termBoostShare > ranking.termFactsShare;
}

/**
 * The tsquery matching any of `spellings` (text[]), each with the `weight` label (`''`
 * for any field, `':A'` for the question); the plain cast when there is one.
 */
function anyOf(spellings: string, weight: string): string {
  return `CASE WHEN cardinality(${spellings}) = 1
               THEN (quote_literal(${spellings}[1]) || ${weight})::tsquery
               ELSE (SELECT string_agg(quote_literal(x) || ${weight}, ' | ')
                     FROM unnest(${spellings}) x)::tsquery END`;
}

/**
 * A rare naming word's spellings, as a sub-select (`terms` asks for them only for a
 * naming word of six letters or more that at most two facts hold): the word, and the
 * corpus's words one letter away from it (one left out, added or changed, or two
 * swapped) that are in no more facts than it. A rare name's one misspelled fact is a
 * large share of what there is about it (a fact's "Amber Dceless game" for "Amber
 * Diceless", "Penrhym Castle" for "Penrhyn"). A name no fact holds (the caller's
 * "Anthropc") takes its look-alike when there is exactly one. A fact holding a spelling
 * holds the word. Common words and common names keep their own spelling: "state" and
 * "stage", "Poland" and "Yoland" are all words. Both sides' words are found by their
 * one-letter deletions (`lexeme_spellings`, filled with the term statistics): a few
 * index probes a rare name.
 */
function spellings(word: string, facts: string): string {
  const deletions = `ARRAY(SELECT overlay(${word} placing '' from i for 1)
                             FROM generate_series(1, length(${word})) i)`;
  return `(
        SELECT ${word} || CASE WHEN ${facts} = 0 AND cardinality(a.alike) > 1 THEN '{}' ELSE a.alike END
        FROM (SELECT ${deletions} AS deletions) d
        CROSS JOIN LATERAL (
          SELECT ARRAY(
            SELECT DISTINCT x.lexeme FROM (
              SELECT v.lexeme FROM lexeme_spellings v WHERE v.variant = ANY (d.deletions || ${word})
              UNION ALL SELECT unnest(d.deletions)
            ) x JOIN lexeme_stats r ON r.lexeme = x.lexeme
            WHERE x.lexeme <> ${word} AND (${facts} = 0 OR r.ndoc <= ${facts})
            ORDER BY x.lexeme
          ) AS alike
        ) a
      )`;
}

/**
 * The lexical side: the facts of the window holding most of the selective terms' weight,
 * as scoring weighs them (IDF to the rarity power) for a question, so that its subject's
 * facts are drawn before other subjects' facts on its relation: at 100k facts, with
 * name-swapped look-alikes of every template, a fact naming "Deering" alone lost its
 * place to a hundred on "military branch" (recall@10 0.897 → 0.903, first answer 0.917
 * → 0.932). Keywords weigh by plain IDF, each of a text's words about as telling as
 * another (with the rarity power dev article-word recall fell 0.933 → 0.883).
 *
 * Facts holding the same query terms (so the same weight) take at most `sameTerms` of
 * the places, the newest of them (`Ranking.sameTermsShare`): one template's look-alikes,
 * which differ in names the query does not hold, tie on everything this side can tell
 * apart, and a hundred of them would otherwise fill every place with the same evidence.
 * Places that no other fact takes go to the rest of the best-weighted ones (those holding
 * the query's rarest terms), newest first: the share keeps look-alikes from crowding
 * others out, not from places nobody else wants. At 1M, "Who was the president of
 * Myanmar?" selected 18 facts by its one rare word; ten of them tied on it, six were left
 * out, the answer among them, and eight places stayed empty (1M recall@10 0.879 → 0.890
 * filling from every group; with the session's other changes, 0.893 so and 0.897 from
 * the best group alone, which reads 12% fewer candidates: bench/README.md).
 * The share is worked out among the best `reach` facts by weight, then date: ranking
 * every selected fact (20,000 at 1M) cost 40% of a search there, the reach of ten times
 * the places 2% (bench/README.md).
 *
 * The commoner terms past the budget (up to `Ranking.termBoostShare`; past 100k facts,
 * RankingRepository) select nothing but add their weight to the selected facts that
 * hold them (`boost`): at 1M an article's middling words ("recalling … vehicles …
 * update", each in 4,000 to 12,000 facts) are what sets its fact apart from look-alikes
 * tied with it on the rarer words, and the answers they lift lay 11th to 11,246th by the
 * rarer words alone, out of reach of any reach. Only the facts they can lift to the
 * reach's weight (`lift`: within the commoner terms' whole weight of it) are looked up,
 * so the boost changes nothing else; summing the same postings into every fact they
 * hold (a larger budget) cost +66% of the statement at 1M against the boost's +50%.
 */
function lexicalCandidates(parts: Parts, ranking: Ranking, limit: number): string {
  const answerWeight = float(ranking.answerWeight);
  const sameTerms = int(Math.ceil(limit * ranking.sameTermsShare));
  const reach = int(limit * ranking.sameTermsReach);
  // A term's weight on this side: plain IDF for keywords, as scoring weighs them.
  const termWeight = `CASE WHEN ${parts.keywords} THEN t.idf ELSE t.weight END`;
  const weight = `sum(${termWeight}
                 * CASE WHEN p.in_question THEN 1 ELSE ${answerWeight} END)`;
  const postings = `CROSS JOIN LATERAL (
        SELECT f.fact_id, f.in_question, f.true_by FROM fact_terms f
        WHERE f.term = ANY (t.spellings) ${parts.within} OFFSET 0
      ) p`;
  const select = (
    filter: string,
  ) => `-- One index-only range scan per selective term ("OFFSET 0" keeps the planner
      -- from merging the whole term index against the terms instead). Each fact's sum
      -- adds its terms in the terms' order, so facts holding the same terms weigh the
      -- same to the last bit.
      SELECT p.fact_id AS id, max(p.true_by) AS day,
             ${weight} AS weight
      FROM terms t ${postings}
      WHERE ${filter}
      GROUP BY p.fact_id`;
  const summed = !boosts(ranking)
    ? `summed AS (
      ${select('t.selective')}
    ),`
    : `selected AS MATERIALIZED (
      ${select('t.selective')}
    ),
    leaders AS MATERIALIZED (
      SELECT * FROM selected ORDER BY weight DESC, day DESC NULLS LAST, id LIMIT ${reach}
    ),
    lift AS (
      -- Only these can reach the leaders' weight with every commoner term added.
      SELECT * FROM selected
      WHERE weight >= (SELECT min(weight) FROM leaders)
                      - (SELECT coalesce(sum(${termWeight}), 0)
                         FROM terms t WHERE t.boosting AND NOT t.selective)
    ),
    boost AS (
      SELECT p.fact_id AS id, ${weight} AS weight
      FROM terms t ${postings}
      WHERE t.boosting AND NOT t.selective AND p.fact_id IN (SELECT id FROM lift)
      GROUP BY p.fact_id
    ),
    summed AS (
      SELECT id, day, max(weight) AS weight FROM (
        SELECT * FROM leaders
        UNION ALL SELECT l.id, l.day, l.weight + b.weight FROM lift l JOIN boost b ON b.id = l.id
      ) u GROUP BY id, day
    ),`;
  return `${summed}
    lexical AS (
      SELECT id FROM (
        SELECT id, weight, max(weight) OVER () AS top,
               row_number() OVER (PARTITION BY weight ORDER BY day DESC NULLS LAST, id) AS nth
        FROM (SELECT * FROM summed ORDER BY weight DESC, day DESC NULLS LAST, id LIMIT ${reach}) best
      ) ranked
      WHERE nth <= ${sameTerms} OR weight = top
      -- Within their share first, then the rest of the best-weighted into the places left.
      ORDER BY nth > ${sameTerms}, weight DESC, nth
      LIMIT ${int(limit)}
    )`;
}

/**
 * The semantic side, ending in the CTE `semantic`: the facts nearest the query vector,
 * reached as the window path says.
 *
 * A narrow date window (`Ranking.scanWindowFactor`) is scanned: by Hamming distance of
 * the vectors' bits over the day index alone, then the best four times as many
 * ranked exactly (so a window of fewer facts than that is ranked exactly), "+ 0"
 * keeping the planner off the HNSW index. The HNSW graph would have to be walked far
 * to find a narrow window's facts, reading each one's page to test its day. A wider
 * window goes through the graph, whose iterative scan (a session setting) walks on
 * until enough neighbours pass. The vector must be an expression of the parameter,
 * not a CTE column, or the planner cannot use the HNSW index; as a sub-select it is
 * computed once also in a generic plan, which would otherwise convert it per row.
 * The wider window's bounds are no index condition ("+ 0"), so that no plan, generic
 * or not, reads the window through the day index and sorts it instead of walking.
 *
 * The walk gives up after `hnsw.max_scan_tuples` facts (SESSION_SETTINGS): a query
 * whose neighbourhood holds few facts of the window would otherwise walk on through
 * 20,000 (150 ms at 1M). A walk that found none of the window's facts is followed by
 * a scan of the window, as for a narrow one, so that its nearest facts still count;
 * one that found some keeps them (at 1M, 99.4% of windowed results as without a cap).
 */
function semanticCandidates(parts: Parts, path: WindowPath, limit: string): string {
  const { v, window } = parts;
  switch (path) {
    case 'scan':
      return `${scanWindow(parts, 'true', limit)}, semantic AS (SELECT id FROM scanned)`;
    case 'wide':
      return `walked AS MATERIALIZED (
        SELECT f.id FROM facts f WHERE true ${window('f.true_by + 0')}
        ORDER BY f.embedding <=> ${v} LIMIT ${limit}
      ),
      ${scanWindow(parts, `NOT EXISTS (SELECT FROM walked)`, limit)},
      semantic AS (SELECT id FROM walked UNION SELECT id FROM scanned)`;
    case 'none':
      return `semantic AS (
        SELECT f.id FROM facts f ORDER BY f.embedding <=> ${v} LIMIT ${limit}
      )`;
  }
}

/** A scan of the window when `gate` holds, ending in the CTE `scanned`. */
function scanWindow(parts: Parts, gate: string, limit: string): string {
  const { vector, v, within } = parts;
  return `coarse AS MATERIALIZED (
        SELECT f.id FROM facts f WHERE ${gate} ${within}
        ORDER BY f.embedding_bits <~> (SELECT binary_quantize(${vector}::int4[]::vector))
        LIMIT 4 * ${limit}
      ),
      scanned AS (
        SELECT f.id FROM facts f WHERE f.id IN (SELECT id FROM coarse)
        ORDER BY (f.embedding <=> ${v}) + 0 LIMIT ${limit}
      )`;
}

/**
 * The candidates of both sides, once each, fetched once: the columns scoring reads,
 * and the hash of the question that its series is found by.
 */
function drawn(parts: Parts): string {
  return `drawn AS MATERIALIZED (
      SELECT ${scoredColumns(parts)}, md5(f.question) AS hash
      FROM facts f WHERE f.id = ANY (ARRAY(SELECT id FROM lexical UNION SELECT id FROM semantic))
    )`;
}

/**
 * The newest k values inside the bounds of each drawn question (see the SQL comment),
 * but the drawn ones themselves. The series index gives each fact's row, so they are
 * read here with what scoring reads, not fetched again by id.
 */
function series(parts: Parts): string {
  return `-- One question's values over time (a population, year by year) tie on both sides,
    -- which then return an arbitrary part of a long series: each drawn question also
    -- brings its newest values inside the bounds, if it is asked of more than one fact.
    series AS (
      SELECT s.*
      FROM (SELECT DISTINCT d.hash FROM drawn d
            WHERE EXISTS (SELECT FROM series_questions s WHERE s.hash = d.hash)) q
      CROSS JOIN LATERAL (
        SELECT ${scoredColumns(parts)} FROM facts f WHERE md5(f.question) = q.hash ${parts.within}
        ORDER BY f.true_by DESC NULLS LAST LIMIT ${parts.k}
      ) s
      WHERE s.id NOT IN (SELECT id FROM drawn)
    )`;
}

/** What scoring reads of a fact `f`, with its cosine similarity to the query. */
function scoredColumns(parts: Parts): string {
  return `f.id, f.question, f.answer, f.true_by, f.sources, f.search_text,
             1 - (f.embedding <=> ${parts.v}) AS cos`;
}

/**
 * Each candidate with both signals in 0..1: `cos`, and `lex`, the weighted share of the
 * query's terms it holds (see `terms`; answer-only terms counting `answerWeight`); for
 * a long list of keywords by plain IDF, as they are drawn, and as a share of
 * `Ranking.keywordCoverage` of their weight, or of the best candidate's where that holds
 * more; and
 * `held`, those terms, and `named`, the weight of the naming ones among them (for the
 * close-match cut's subject test). In the order of their
 * ids, as the later stages have always seen them (ties keep it).
 */
function scoring(parts: Parts, ranking: Ranking): string {
  const [answerWeight, coverage] = [float(ranking.answerWeight), float(ranking.keywordCoverage)];
  const wordy = `(${parts.keywords} AND NOT ${shortQuery(ranking)})`;
  return `scored AS MATERIALIZED (
      SELECT f.id, f.question, f.answer, to_char(f.true_by, 'YYYY-MM-DD') AS true_by,
             f.sources, f.true_by AS day, f.cos, f.search_text,
             coalesce(h.weight / nullif(CASE WHEN ${wordy}
                                             THEN greatest(max(h.weight) OVER (),
                                                           ${coverage} * (SELECT sum(idf) FROM terms))
                                             ELSE (SELECT sum(weight) FROM terms) END, 0), 0) AS lex,
             coalesce(h.held, '{}') AS held, coalesce(h.named, 0) AS named
      FROM (SELECT id, question, answer, true_by, sources, search_text, cos FROM drawn
            UNION ALL SELECT * FROM series) f
      CROSS JOIN LATERAL (
        SELECT sum(CASE WHEN ${wordy} THEN t.idf ELSE t.weight END
                   * CASE WHEN f.search_text @@ t.in_question THEN 1 ELSE ${answerWeight} END) AS weight,
               array_agg(t.lexeme) AS held, sum(t.weight) FILTER (WHERE t.named) AS named
        FROM terms t WHERE f.search_text @@ t.any_field
      ) h
      ORDER BY f.id
    )`;
}

/**
 * Fusion: one score, the semantic weight's share of `cos` and the rest of `lex`.
 * Mirror: `fuse` in evaluation.ts.
 */
function fuse(ranking: Ranking): string {
  const w = float(ranking.semanticWeight);
  return `fused AS (SELECT *, ${w} * cos + (1 - ${w}) * lex AS score FROM scored)`;
}

/**
 * The close-match cut, ending in the CTE `picked`: the k best facts over the bars
 * (score, share of the best lexical score, and for a short question the subject test),
 * with the best match's siblings, or when none is, the k nearest, marked not close.
 * Mirror: `closeMatches` in evaluation.ts.
 *
 * The subject test: a short question ("Which position did X hold?", at most
 * `shortQuestionTerms` terms) names a subject and a relation. Its anchor is the best
 * match of those that hold most of the question's naming words (`QueryForm.names`), or
 * the best match when none does; a close match must hold at least `subject` of the
 * weight of the query terms the anchor holds. The anchor is found by the names, not by
 * the score alone: "Who is Boeing's chief executive?" scores facts on another company's
 * "chief executive" above Boeing's own, worded "CEO". Another subject's fact that shares only the
 * question's relation word ("subsidiary", "terminus") holds none of the best match's
 * subject, even when its words are as rare (dev first answer 0.909 → 0.947). A long
 * question (a news quiz's) is matched by facts that each share a different part of it,
 * so it is not held to the best match's words; `subject` is 0 for keywords alike.
 *
 * The anchor's siblings: the same subject's fact on the same relation, worded otherwise
 * ("Beijing Subway's terminal station for Line 15" beside the anchor's "Beijing Subway's
 * Line 15 terminus"; "Deering belonged to which … National Guard" beside "Which state
 * National Guard did Myles Deering belong to"), scores far below the anchor on the
 * question's words, which it lacks, and is cut by the relative bar, though it answers
 * the question as well. For a short question it stays a close match when it holds
 * `siblingNames` of the anchor's naming weight and `sibling` of the IDF of the anchor's
 * own question words beyond the query's (its `template`: how the subject's facts word
 * the relation). The subject's facts on other relations share the names but not that
 * wording, and other subjects' facts the wording but not the names: neither comes in.
 * A sibling is the subject's by its names, so the subject test, which asks for a share
 * of the anchor's terms with its relation word, does not apply to it: at 1M, where
 * "terminus" outweighs "Line 15" six times, it cut the terminal station's fact.
 * A fact with those names that holds every relation word of the question the anchor
 * holds (its terms that are no names: the question's own wording of the relation) is a
 * sibling too: at 1M "publisher of the Amber Diceless game" lacks the rarest name of
 * "publisher of Amber Diceless Roleplaying Game" and all of the anchor's own wording
 * ("the company that published"), and the relative bar cut it (1M 0.900 → 0.903).
 */
function closeMatches(
  ranking: Ranking,
  relative: string,
  relativeLong: string,
  subject: string,
  sibling: string,
  k: number,
): string {
  const [threshold, lexical, short, names, limit] = [
    float(ranking.closeThreshold),
    float(ranking.lexicalShare),
    shortQuery(ranking),
    float(ranking.siblingNames),
    int(k),
  ];
  // The subject test's bar and the siblings' are worked out once; 0 (a long question,
  // keywords, a best match holding no query term) skips the test and its per-row sum.
  return `best AS (
      SELECT id, held, named, search_text FROM fused
      ORDER BY named DESC, score DESC, day DESC NULLS LAST, id LIMIT 1
    ),
    template AS (
      SELECT (quote_literal(w.lexeme) || ':A')::tsquery AS in_question, w.idf
      FROM best b CROSS JOIN LATERAL ${questionWords('b.search_text')} w
    ),
    cut AS (
      SELECT greatest(${threshold}, max(score) * CASE WHEN ${short}
                                      THEN ${relative} ELSE ${relativeLong} END) AS bar,
             max(lex) AS top_lex,
             (SELECT held FROM best) AS best_held, (SELECT named FROM best) AS best_named,
             CASE WHEN ${short}
               THEN ${subject} * (SELECT coalesce(sum(t.weight), 0) FROM terms t, best b
                                  WHERE t.lexeme = ANY (b.held))
               ELSE 0 END AS subject_bar,
             CASE WHEN ${short} AND (SELECT named FROM best) > 0
               THEN ${sibling} * (SELECT coalesce(sum(idf), 0) FROM template)
               ELSE 0 END AS sibling_bar,
             CASE WHEN ${short} AND ${sibling} > 0 AND (SELECT named FROM best) > 0
               THEN ARRAY(SELECT t.lexeme FROM terms t, best b
                          WHERE NOT t.named AND t.lexeme = ANY (b.held))
               ELSE '{}' END AS relation
      FROM fused
    ),
    close AS (
      SELECT f.* FROM fused f, cut
      WHERE f.lex >= ${lexical} * cut.top_lex
        AND CASE WHEN f.score >= cut.bar
                      AND (cut.subject_bar = 0
                           OR (SELECT coalesce(sum(t.weight), 0) FROM terms t
                               WHERE t.lexeme = ANY (cut.best_held) AND t.lexeme = ANY (f.held))
                              >= cut.subject_bar)
                 THEN true
                 WHEN (cut.sibling_bar > 0 OR cardinality(cut.relation) > 0)
                      AND f.score >= ${threshold} AND f.named >= ${names} * cut.best_named
                 THEN (cardinality(cut.relation) > 0 AND f.held @> cut.relation)
                      OR (cut.sibling_bar > 0
                          AND (SELECT coalesce(sum(t.idf), 0) FROM template t
                               WHERE f.search_text @@ t.in_question) >= cut.sibling_bar)
                 ELSE false END
      -- The k closest; of equal ones (a series of one question) the newest.
      ORDER BY f.score DESC, f.day DESC NULLS LAST LIMIT ${limit}
    ),
    picked AS (
      SELECT *, true AS close FROM close
      UNION ALL
      (SELECT f.*, false FROM fused f WHERE NOT EXISTS (SELECT FROM close)
       ORDER BY f.score DESC, f.day DESC NULLS LAST LIMIT ${limit})
    )`;
}

/** The share of the anchor's wording a sibling must hold, for a query of this form (see `closeMatches`). */
export function siblingWording(ranking: Pick<Ranking, 'siblingWording'>, form: QueryForm): number {
  return form.keywords ? 0 : ranking.siblingWording;
}

/** The share of the best match's held weight a close match must hold (see `closeMatches`). */
export function subjectShare(ranking: Pick<Ranking, 'subjectShare'>, form: QueryForm): number {
  return form.keywords ? 0 : ranking.subjectShare;
}

/** The share of the best score a close match needs, for a query of this form and length. */
export function relativeThreshold(
  ranking: Pick<
    Ranking,
    'relativeThreshold' | 'keywordRelativeThreshold' | 'longQuestionRelativeThreshold'
  >,
  form: QueryForm,
  long: boolean,
): number {
  if (form.keywords) return ranking.keywordRelativeThreshold;
  return long ? ranking.longQuestionRelativeThreshold : ranking.relativeThreshold;
}

/**
 * The order of the answer: newest first on a timeline, else best first. Of facts on
 * the same day (a role's new and previous holder, dated by the handover), those asking
 * about a predecessor come first when the query does (`QueryForm.previous`) and last
 * otherwise; the id breaks the last ties, so that equal facts come in one order.
 * Mirror: `order` in evaluation.ts.
 */
function order(timeline: string, previous: string, k: number): string {
  const tense = `(regexp_replace(question, '${FORMER_NAME}', '', 'g') ~* '\\m(${PREVIOUS_WORDS})\\M') = ${previous} DESC`;
  // On a timeline: day, tense, score; otherwise score, tense, day. A key that does not
  // apply is null for every row, so it orders nothing.
  return `SELECT question, answer, true_by, sources, score, close FROM picked
    ORDER BY CASE WHEN ${timeline} THEN day END DESC NULLS LAST,
      CASE WHEN NOT ${timeline} THEN score END DESC, ${tense},
      CASE WHEN ${timeline} THEN score END DESC,
      CASE WHEN NOT ${timeline} THEN day END DESC NULLS LAST, id LIMIT ${int(k)}`;
}

/**
 * A fact's own question words beyond the query's, numbers aside, with their IDF: how it
 * words its relation. A sub-select of `lexeme` and `idf` over `searchText`, a fact's
 * tsvector (the question's lexemes are its A-weighted ones), for a statement that has
 * the CTE `terms`; the anchor's make the siblings' `template` (`closeMatches`), and
 * `RankingRepository.candidates` reads every candidate's for the replay. The sub-select
 * names its own tables l, c and s: `searchText` must not use those aliases.
 */
export function questionWords(searchText: string): string {
  return `(SELECT l.lexeme, ${idf('s.ndoc')} AS idf
        FROM unnest(tsvector_to_array(ts_filter(${searchText}, '{a}'))) AS l(lexeme)
        CROSS JOIN corpus_stats c LEFT JOIN lexeme_stats s ON s.lexeme = l.lexeme
        WHERE l.lexeme !~ '^[0-9]' AND l.lexeme <> ALL (ARRAY(SELECT lexeme FROM terms)))`;
}

/**
 * The IDF of a lexeme in `ndoc` of the corpus's facts (`c`, the row of corpus_stats),
 * as BM25 has it.
 */
function idf(ndoc: string): string {
  return `ln(1 + (c.facts - coalesce(${ndoc}, 0) + 0.5)::float8 / (coalesce(${ndoc}, 0) + 0.5))`;
}

/**
 * Numbers of the ranking go into the statement's text rather than its parameters: a
 * prepared statement's generic plan then still knows its LIMITs and weights, and the
 * few values (k, the calibration) make few distinct statements.
 */
/** Whether the query is short (`Ranking.shortQuestionTerms`): a subject and a relation. */
function shortQuery(ranking: Ranking): string {
  return `(SELECT count(*) FROM terms) <= ${int(ranking.shortQuestionTerms)}`;
}

function int(value: number): string {
  if (!Number.isSafeInteger(value)) throw new RangeError(`not an integer: ${value}`);
  return `${value}::int`;
}

function float(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  return `${value}::float8`;
}

/**
 * Query vectors travel as int4[] scaled by 1e6: parsing floats from text costs
 * milliseconds in WASM, and cosine distance does not care about the scale.
 */
function quantise(vector: Float32Array): number[] {
  return Array.from(vector, (x) => Math.round(x * 1e6));
}
