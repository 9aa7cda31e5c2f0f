// How many of group $group's turns contain each word ($queries: {word, query}, the query
// the group's key and the word against search_text, as cogmem/retrieval/graph_source.py
// builds it), and how many turns the group has: BM25's idf of each word among the group's
// own turns (late interaction weighs the question's words by it).
// $as_of (null: now): only the turns said by then.
// Counted without reading a node's properties where the indexes can tell: the group's
// turns through the group_id index (as of a time, the (group_id, at) index), a word's
// turns by Lucene alone (the group's key is a required clause of the query, so every match
// is the group's); as of a time the query keeps the turns said by the end of that day
// (said_key) and only those matches' `at` is read. At 100k turns this took
// 39 ms for four words now and 153 ms as of a time when it also read every match's group
// and times.
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
  WITH node
  WHERE $as_of IS NULL OR node.at <= $as_of
  RETURN count(node) AS df
}
RETURN q.word AS word, df, docs
