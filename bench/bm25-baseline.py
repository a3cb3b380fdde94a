#!/usr/bin/env python3
"""Plain BM25 on a bench corpus, as a user without freshfacts would build it.

SQLite FTS5 (Python's own sqlite3, porter stemmer) over each fact's question and
answer; a query is the OR of its words (English stop words left out), inside its
date window; the matches over 0.6 x the best BM25 score are kept. Two orders, both
k 10 as `eval` asks:

  best-then-newest  the 10 best of those by score, then newest first (what freshfacts
                    does with its close matches)
  newest-of-cut     all of those newest first, then the first 10 (the retrieval
                    issue's "0.6 x best cut, then newest first")

Prints recall@10 and first answer, overall and by kind, as `eval` counts them. With
--ranks, prints instead each query's rank by BM25 alone (1 the best; "-" past the
1,000th or unmatched) of its first fact holding the expected answer, one JSON line a
query: how far plain BM25 would have to read to find what freshfacts misses.

  python3 bench/bm25-baseline.py corpus/facts-dev.jsonl corpus/queries-dev.jsonl
  python3 bench/bm25-baseline.py bench/.cache/corpus-1000000-seed1-disjoint2.jsonl \\
      corpus/queries-dev.jsonl /tmp/fts-1m.db     # the index is kept for the next run
  python3 bench/bm25-baseline.py --ranks corpus/facts-dev.jsonl corpus/queries-dev.jsonl
"""
import json
import os
import re
import sqlite3
import sys

CUT = 0.6
K = 10
STOP = set(
    "a an and are as at be but by for if in into is it no not of on or such that the their "
    "then there these they this to was will with what which who whom whose when where why how "
    "did does do has have had".split()
)


def open_index(corpus, path):
    fresh = path == ":memory:" or not os.path.exists(path)
    db = sqlite3.connect(path)
    if fresh:
        db.execute(
            "CREATE VIRTUAL TABLE f USING fts5(question, answer, true_by UNINDEXED, "
            "tokenize='porter unicode61')"
        )
        with open(corpus) as lines:
            db.executemany(
                "INSERT INTO f VALUES (?, ?, ?)",
                ((d["question"], d["answer"], d.get("true_by")) for d in map(json.loads, lines)),
            )
        db.commit()
    return db


def kind_of(query):
    kind = (query.get("note") or "queries").split(":")[0]
    if kind == "timeqa-time-sensitive":
        kind += " windowed" if query.get("true_by_max") else " default"
    return kind


def matches(db, query):
    """The query's matches inside its window, best first: (answer, true_by, score)."""
    words = [w for w in re.findall(r"\w+", query["query"].lower()) if w not in STOP]
    sql = "SELECT answer, true_by, -bm25(f) FROM f WHERE f MATCH ?"
    params = [" OR ".join('"%s"' % w for w in words)]
    if query.get("true_by_max"):
        sql += " AND true_by <= ?"
        params.append(query["true_by_max"])
    # A query of stop words alone matches nothing, and is counted as a miss.
    return db.execute(sql + " ORDER BY bm25(f) LIMIT 1000", params).fetchall() if words else []


def answers(db, query):
    rows = matches(db, query)
    if not rows:
        return {"best-then-newest": [], "newest-of-cut": []}
    kept = [r for r in rows if r[2] >= CUT * rows[0][2]]
    newest = lambda rs: sorted(rs, key=lambda r: r[1] or "", reverse=True)
    return {"best-then-newest": newest(kept[:K]), "newest-of-cut": newest(kept)[:K]}


def ranks(db, queries):
    for query in queries:
        expected = query["expect_answer_contains"].lower()
        found = [i for i, r in enumerate(matches(db, query)) if expected in r[0].lower()]
        rank = found[0] + 1 if found else "-"
        print(json.dumps({"query": query["query"], "bm25_rank": rank}))


def main(corpus, queries_file, path=":memory:", rank_only=False):
    db = open_index(corpus, path)
    queries = [json.loads(line) for line in open(queries_file) if line.strip()]
    if rank_only:
        return ranks(db, queries)
    tallies = {}
    for query in queries:
        expected = query["expect_answer_contains"].lower()
        first = (query.get("expect_first_answer_contains") or "").lower()
        for order, rows in answers(db, query).items():
            for kind in ("all", kind_of(query)):
                t = tallies.setdefault((order, kind), [0, 0, 0, 0])
                t[0] += 1
                t[1] += any(expected in r[0].lower() for r in rows)
                if first:
                    t[2] += 1
                    t[3] += bool(rows) and first in rows[0][0].lower()
    for (order, kind), (n, hits, firsts, right) in sorted(tallies.items()):
        share = "%.3f" % (right / firsts) if firsts else "-"
        print(f"{order:18} {kind:32} {n:4}  recall@10 {hits / n:.3f}  first {share}")


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if a != "--ranks"]
    main(*args[:3], rank_only="--ranks" in sys.argv[1:])
