// The stored vectors of turns and records $ids of group $group (pseudo-relevance feedback
// moves the question's vector towards its first pass's best turns).
// $as_of (null: now): only what was said by then, each record with the status it had
// then (see operators/README.md).
CALL () {
  MATCH (n:Turn)
  WHERE n.id IN $ids AND n.group_id = $group
    AND ($as_of IS NULL OR coalesce(n.at, n.first_at) <= $as_of) AND n.embedding IS NOT NULL
  RETURN n
  UNION ALL
  MATCH (n:Memory)
  WHERE n.id IN $ids AND n.group_id = $group
    AND ($as_of IS NULL OR coalesce(n.at, n.first_at) <= $as_of) AND n.embedding IS NOT NULL
  RETURN n
}
RETURN n.id AS id, n.embedding AS embedding
