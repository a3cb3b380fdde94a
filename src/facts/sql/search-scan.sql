-- FactsRepository.search's statement for a narrow date window (scanned),
-- with the static model's ranking and k = 10. Rendered by
-- test/facts/ranking-sql.spec.ts: do not edit, run `npm run render-sql`.
-- $1 = "Who is the head coach of Calcio Catania?"
-- $2 = [250000,-500000,125000]
-- $3 = "Calcio Catania"
-- $4 = false
-- $5 = "2020-01-01"
-- $6 = "2020-06-30"
-- $7 = 0.7
-- $8 = 0.5
-- $9 = 0.2
-- $10 = 0.3
-- $11 = true
-- $12 = false
WITH terms AS (
      SELECT t.lexeme,
             -- float8: numeric arithmetic costs milliseconds per query in WASM
             ln(1 + (c.facts - coalesce(s.ndoc, 0) + 0.5)::float8 / (coalesce(s.ndoc, 0) + 0.5)) AS idf,
             power(ln(1 + (c.facts - coalesce(s.ndoc, 0) + 0.5)::float8 / (coalesce(s.ndoc, 0) + 0.5)),
                   3::float8) AS weight,
             coalesce(s.ndoc, 0) <= c.facts * 0.1::float8
               AND sum(coalesce(s.ndoc, 0)) OVER (ORDER BY coalesce(s.ndoc, 0), t.lexeme)
                   <= greatest(2000::int, c.facts * 0.02::float8) AS selective,
             coalesce(s.ndoc, 0) <= c.facts * 0.1::float8
               AND sum(coalesce(s.ndoc, 0)) OVER (ORDER BY coalesce(s.ndoc, 0), t.lexeme)
                   <= greatest(2000::int, c.facts * 0.05::float8) AS boosting,
             n.named, w.spellings,
             CASE WHEN cardinality(w.spellings) = 1
               THEN (quote_literal(w.spellings[1]) || '')::tsquery
               ELSE (SELECT string_agg(quote_literal(x) || '', ' | ')
                     FROM unnest(w.spellings) x)::tsquery END AS any_field,
             CASE WHEN cardinality(w.spellings) = 1
               THEN (quote_literal(w.spellings[1]) || ':A')::tsquery
               ELSE (SELECT string_agg(quote_literal(x) || ':A', ' | ')
                     FROM unnest(w.spellings) x)::tsquery END AS in_question
      FROM unnest(tsvector_to_array(to_tsvector('english', $1))) AS t(lexeme)
      CROSS JOIN corpus_stats c
      LEFT JOIN lexeme_stats s ON s.lexeme = t.lexeme
      CROSS JOIN LATERAL (
        SELECT t.lexeme = ANY (tsvector_to_array(to_tsvector('english', $3))) AS named
      ) n
      CROSS JOIN LATERAL (
        SELECT CASE WHEN n.named AND coalesce(s.ndoc, 0) <= 2 AND length(t.lexeme) >= 6
                         AND t.lexeme ~ '^[a-z]+$'
                    THEN (
        SELECT t.lexeme || CASE WHEN coalesce(s.ndoc, 0) = 0 AND cardinality(a.alike) > 1 THEN '{}' ELSE a.alike END
        FROM (SELECT ARRAY(SELECT overlay(t.lexeme placing '' from i for 1)
                             FROM generate_series(1, length(t.lexeme)) i) AS deletions) d
        CROSS JOIN LATERAL (
          SELECT ARRAY(
            SELECT DISTINCT x.lexeme FROM (
              SELECT v.lexeme FROM lexeme_spellings v WHERE v.variant = ANY (d.deletions || t.lexeme)
              UNION ALL SELECT unnest(d.deletions)
            ) x JOIN lexeme_stats r ON r.lexeme = x.lexeme
            WHERE x.lexeme <> t.lexeme AND (coalesce(s.ndoc, 0) = 0 OR r.ndoc <= coalesce(s.ndoc, 0))
            ORDER BY x.lexeme
          ) AS alike
        ) a
      )
                    ELSE ARRAY[t.lexeme] END AS spellings
        OFFSET 0 -- worked out once, not again where each use of it is inlined
      ) w
      -- Words of time relative to the asker ("today", "the current one") say which of
      -- a subject's facts is wanted, not what the subject is: the order sees to them.
      WHERE t.lexeme <> ALL (tsvector_to_array(to_tsvector('english', 'previous previously former formerly predecessor preceded preceding before prior outgoing current currently today nowadays latest recent recently incumbent')))
    ),
    selected AS MATERIALIZED (
      -- One index-only range scan per selective term ("OFFSET 0" keeps the planner
      -- from merging the whole term index against the terms instead). Each fact's sum
      -- adds its terms in the terms' order, so facts holding the same terms weigh the
      -- same to the last bit.
      SELECT p.fact_id AS id, max(p.true_by) AS day,
             sum(CASE WHEN $4::boolean THEN t.idf ELSE t.weight END
                 * CASE WHEN p.in_question THEN 1 ELSE 0.2::float8 END) AS weight
      FROM terms t CROSS JOIN LATERAL (
        SELECT f.fact_id, f.in_question, f.true_by FROM fact_terms f
        WHERE f.term = ANY (t.spellings)  AND f.true_by >= $5::date AND f.true_by <= $6::date OFFSET 0
      ) p
      WHERE t.selective
      GROUP BY p.fact_id
    ),
    leaders AS MATERIALIZED (
      SELECT * FROM selected ORDER BY weight DESC, day DESC NULLS LAST, id LIMIT 200::int
    ),
    lift AS (
      -- Only these can reach the leaders' weight with every commoner term added.
      SELECT * FROM selected
      WHERE weight >= (SELECT min(weight) FROM leaders)
                      - (SELECT coalesce(sum(CASE WHEN $4::boolean THEN t.idf ELSE t.weight END), 0)
                         FROM terms t WHERE t.boosting AND NOT t.selective)
    ),
    boost AS (
      SELECT p.fact_id AS id, sum(CASE WHEN $4::boolean THEN t.idf ELSE t.weight END
                 * CASE WHEN p.in_question THEN 1 ELSE 0.2::float8 END) AS weight
      FROM terms t CROSS JOIN LATERAL (
        SELECT f.fact_id, f.in_question, f.true_by FROM fact_terms f
        WHERE f.term = ANY (t.spellings)  AND f.true_by >= $5::date AND f.true_by <= $6::date OFFSET 0
      ) p
      WHERE t.boosting AND NOT t.selective AND p.fact_id IN (SELECT id FROM lift)
      GROUP BY p.fact_id
    ),
    summed AS (
      SELECT id, day, max(weight) AS weight FROM (
        SELECT * FROM leaders
        UNION ALL SELECT l.id, l.day, l.weight + b.weight FROM lift l JOIN boost b ON b.id = l.id
      ) u GROUP BY id, day
    ),
    lexical AS (
      SELECT id FROM (
        SELECT id, weight, max(weight) OVER () AS top,
               row_number() OVER (PARTITION BY weight ORDER BY day DESC NULLS LAST, id) AS nth
        FROM (SELECT * FROM summed ORDER BY weight DESC, day DESC NULLS LAST, id LIMIT 200::int) best
      ) ranked
      WHERE nth <= 4::int OR weight = top
      -- Within their share first, then the rest of the best-weighted into the places left.
      ORDER BY nth > 4::int, weight DESC, nth
      LIMIT 20::int
    ),
    coarse AS MATERIALIZED (
        SELECT f.id FROM facts f WHERE true  AND f.true_by >= $5::date AND f.true_by <= $6::date
        ORDER BY f.embedding_bits <~> (SELECT binary_quantize($2::int4[]::vector))
        LIMIT 4 * 20::int
      ),
      scanned AS (
        SELECT f.id FROM facts f WHERE f.id IN (SELECT id FROM coarse)
        ORDER BY (f.embedding <=> (SELECT $2::int4[]::vector)) + 0 LIMIT 20::int
      ), semantic AS (SELECT id FROM scanned),
    drawn AS MATERIALIZED (
      SELECT f.id, f.question, f.answer, f.true_by, f.sources, f.search_text,
             1 - (f.embedding <=> (SELECT $2::int4[]::vector)) AS cos, md5(f.question) AS hash
      FROM facts f WHERE f.id = ANY (ARRAY(SELECT id FROM lexical UNION SELECT id FROM semantic))
    ),
    -- One question's values over time (a population, year by year) tie on both sides,
    -- which then return an arbitrary part of a long series: each drawn question also
    -- brings its newest values inside the bounds, if it is asked of more than one fact.
    series AS (
      SELECT s.*
      FROM (SELECT DISTINCT d.hash FROM drawn d
            WHERE EXISTS (SELECT FROM series_questions s WHERE s.hash = d.hash)) q
      CROSS JOIN LATERAL (
        SELECT f.id, f.question, f.answer, f.true_by, f.sources, f.search_text,
             1 - (f.embedding <=> (SELECT $2::int4[]::vector)) AS cos FROM facts f WHERE md5(f.question) = q.hash  AND f.true_by >= $5::date AND f.true_by <= $6::date
        ORDER BY f.true_by DESC NULLS LAST LIMIT 10::int
      ) s
      WHERE s.id NOT IN (SELECT id FROM drawn)
    ),
    scored AS MATERIALIZED (
      SELECT f.id, f.question, f.answer, to_char(f.true_by, 'YYYY-MM-DD') AS true_by,
             f.sources, f.true_by AS day, f.cos, f.search_text,
             coalesce(h.weight / nullif(CASE WHEN ($4::boolean AND NOT (SELECT count(*) FROM terms) <= 6::int)
                                             THEN greatest(max(h.weight) OVER (),
                                                           0.5::float8 * (SELECT sum(idf) FROM terms))
                                             ELSE (SELECT sum(weight) FROM terms) END, 0), 0) AS lex,
             coalesce(h.held, '{}') AS held, coalesce(h.named, 0) AS named
      FROM (SELECT id, question, answer, true_by, sources, search_text, cos FROM drawn
            UNION ALL SELECT * FROM series) f
      CROSS JOIN LATERAL (
        SELECT sum(CASE WHEN ($4::boolean AND NOT (SELECT count(*) FROM terms) <= 6::int) THEN t.idf ELSE t.weight END
                   * CASE WHEN f.search_text @@ t.in_question THEN 1 ELSE 0.2::float8 END) AS weight,
               array_agg(t.lexeme) AS held, sum(t.weight) FILTER (WHERE t.named) AS named
        FROM terms t WHERE f.search_text @@ t.any_field
      ) h
      ORDER BY f.id
    ),
    fused AS (SELECT *, 0.3::float8 * cos + (1 - 0.3::float8) * lex AS score FROM scored),
    best AS (
      SELECT id, held, named, search_text FROM fused
      ORDER BY named DESC, score DESC, day DESC NULLS LAST, id LIMIT 1
    ),
    template AS (
      SELECT (quote_literal(w.lexeme) || ':A')::tsquery AS in_question, w.idf
      FROM best b CROSS JOIN LATERAL (SELECT l.lexeme, ln(1 + (c.facts - coalesce(s.ndoc, 0) + 0.5)::float8 / (coalesce(s.ndoc, 0) + 0.5)) AS idf
        FROM unnest(tsvector_to_array(ts_filter(b.search_text, '{a}'))) AS l(lexeme)
        CROSS JOIN corpus_stats c LEFT JOIN lexeme_stats s ON s.lexeme = l.lexeme
        WHERE l.lexeme !~ '^[0-9]' AND l.lexeme <> ALL (ARRAY(SELECT lexeme FROM terms))) w
    ),
    cut AS (
      SELECT greatest(0.15::float8, max(score) * CASE WHEN (SELECT count(*) FROM terms) <= 6::int
                                      THEN $7::float8 ELSE $8::float8 END) AS bar,
             max(lex) AS top_lex,
             (SELECT held FROM best) AS best_held, (SELECT named FROM best) AS best_named,
             CASE WHEN (SELECT count(*) FROM terms) <= 6::int
               THEN $9::float8 * (SELECT coalesce(sum(t.weight), 0) FROM terms t, best b
                                  WHERE t.lexeme = ANY (b.held))
               ELSE 0 END AS subject_bar,
             CASE WHEN (SELECT count(*) FROM terms) <= 6::int AND (SELECT named FROM best) > 0
               THEN $10::float8 * (SELECT coalesce(sum(idf), 0) FROM template)
               ELSE 0 END AS sibling_bar,
             CASE WHEN (SELECT count(*) FROM terms) <= 6::int AND $10::float8 > 0 AND (SELECT named FROM best) > 0
               THEN ARRAY(SELECT t.lexeme FROM terms t, best b
                          WHERE NOT t.named AND t.lexeme = ANY (b.held))
               ELSE '{}' END AS relation
      FROM fused
    ),
    close AS (
      SELECT f.* FROM fused f, cut
      WHERE f.lex >= 0::float8 * cut.top_lex
        AND CASE WHEN f.score >= cut.bar
                      AND (cut.subject_bar = 0
                           OR (SELECT coalesce(sum(t.weight), 0) FROM terms t
                               WHERE t.lexeme = ANY (cut.best_held) AND t.lexeme = ANY (f.held))
                              >= cut.subject_bar)
                 THEN true
                 WHEN (cut.sibling_bar > 0 OR cardinality(cut.relation) > 0)
                      AND f.score >= 0.15::float8 AND f.named >= 0.4::float8 * cut.best_named
                 THEN (cardinality(cut.relation) > 0 AND f.held @> cut.relation)
                      OR (cut.sibling_bar > 0
                          AND (SELECT coalesce(sum(t.idf), 0) FROM template t
                               WHERE f.search_text @@ t.in_question) >= cut.sibling_bar)
                 ELSE false END
      -- The k closest; of equal ones (a series of one question) the newest.
      ORDER BY f.score DESC, f.day DESC NULLS LAST LIMIT 10::int
    ),
    picked AS (
      SELECT *, true AS close FROM close
      UNION ALL
      (SELECT f.*, false FROM fused f WHERE NOT EXISTS (SELECT FROM close)
       ORDER BY f.score DESC, f.day DESC NULLS LAST LIMIT 10::int)
    )
    SELECT question, answer, true_by, sources, score, close FROM picked
    ORDER BY CASE WHEN $11::boolean THEN day END DESC NULLS LAST,
      CASE WHEN NOT $11::boolean THEN score END DESC, (regexp_replace(question, '([Ff]ormerly|[Pp]reviously) +(?=[A-Z])', '', 'g') ~* '\m(previous|previously|former|formerly|predecessor|preceded|preceding|before|prior|outgoing)\M') = $12::boolean DESC,
      CASE WHEN $11::boolean THEN score END DESC,
      CASE WHEN NOT $11::boolean THEN day END DESC NULLS LAST, id LIMIT 10::int;
