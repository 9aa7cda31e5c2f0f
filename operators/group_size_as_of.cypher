// How many turns and memory records group $group held at $as_of (said by then), counted
// through the (group_id, at) and (group_id, first_at) indexes up to $cap + 1, as
// group_size counts the whole group: whether a vector search as of a date scans them
// exactly (nearest_*_as_of) or asks the shared HNSW index, and how far it over-fetches.
CALL () {
  MATCH (t:Turn) WHERE t.group_id = $group AND t.at <= $as_of
  WITH t LIMIT $cap + 1
  RETURN count(t) AS turns
}
CALL () {
  CALL () {
    MATCH (m:Memory) WHERE m.group_id = $group AND m.at <= $as_of
    RETURN m
    UNION ALL
    MATCH (m:Memory) WHERE m.group_id = $group AND m.first_at <= $as_of
    RETURN m
  }
  WITH m LIMIT $cap + 1
  RETURN count(m) AS records
}
RETURN turns, records
