// How many of group $group's turns contain each word ($queries: {word, query, later}, as
// cogmem/retrieval/graph_source.py builds them: `query` the group's key and the word against
// search_text), and how many turns the group has: BM25's idf of each word among the group's
// own turns (late interaction weighs the question's words by it).
// $as_of (null: now, and `later` is null): only the turns said by then. `query` then keeps
// the turns said by the end of that day (said_key) and `later` matches the word in the
// turns said on that day itself, of which those said after $as_of are taken off: only
// those few are read, every other count comes from the indexes alone (the group's turns
// through the group_id index, as of a time the (group_id, at) index; a word's turns by
// Lucene, the group's key a required clause, so every match is the group's). At 100k turns
// a word's count as of a time took ~3× the time of now when it read every match's `at`.
// (each branch seeks a group id that is null, and so finds nothing, unless it is the one)
CALL () {
  MATCH (t:Turn) WHERE t.group_id = CASE WHEN $as_of IS NULL THEN $group END
  RETURN count(t) AS n
  UNION ALL
  MATCH (t:Turn) WHERE t.group_id = CASE WHEN $as_of IS NOT NULL THEN $group END
    AND t.at <= $as_of
  RETURN count(t) AS n
}
WITH sum(n) AS docs
UNWIND $queries AS q
CALL (q) {
  CALL db.index.fulltext.queryNodes('turn_text', q.query) YIELD node
  RETURN count(node) AS said
}
CALL (q) {
  WITH q WHERE q.later IS NOT NULL
  CALL db.index.fulltext.queryNodes('turn_text', q.later) YIELD node
  WITH node WHERE node.at > $as_of
  RETURN count(node) AS later
}
RETURN q.word AS word, said - later AS df, docs
