// How many of group $group's turns contain each word ($queries: {word, query}, the query
// the group's key and the word against search_text, as cogmem/retrieval/graph_source.py
// builds it), and how many turns the group has: BM25's idf of each word among the group's
// own turns (late interaction weighs the question's words by it).
// $as_of (null: now): only what was said by then, each record with the status it had
// then (see operators/README.md).
MATCH (t:Turn)
WHERE t.group_id = $group AND ($as_of IS NULL OR coalesce(t.at, t.first_at) <= $as_of)
WITH count(t) AS docs
UNWIND $queries AS q
CALL (q) {
  CALL db.index.fulltext.queryNodes('turn_text', q.query) YIELD node
  WITH node
  WHERE node.group_id = $group AND ($as_of IS NULL OR coalesce(node.at, node.first_at) <= $as_of)
  RETURN count(node) AS df
}
RETURN q.word AS word, df, docs
