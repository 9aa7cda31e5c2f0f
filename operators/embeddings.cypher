// The stored vectors of turns and records $ids of group $group (pseudo-relevance feedback
// moves the question's vector towards its first pass's best turns).
CALL () {
  MATCH (n:Turn)
  WHERE n.id IN $ids AND n.group_id = $group AND n.embedding IS NOT NULL
  RETURN n
  UNION ALL
  MATCH (n:Memory)
  WHERE n.id IN $ids AND n.group_id = $group AND n.embedding IS NOT NULL
  RETURN n
}
RETURN n.id AS id, n.embedding AS embedding
