// How many memory records of group $group have one of the types $types, counted through the
// (group_id, type) index up to $cap + 1 (more counts as $cap + 1): whether a typed vector
// search scans them exactly (nearest_records_typed) or asks the shared HNSW index. As of
// $as_of (null: now, and then it is 0), also how many of them had been said by then,
// through the (group_id, type, at) and (group_id, first_at) indexes, up to $cap + 1: a
// typed search as of a date scans those exactly (nearest_records_typed_as_of) when few,
// else sizes its HNSW ask by their share. With the store's records and claims (from the count
// store), which size the HNSW ask: a typed ask needs nothing of group_size, and runs beside
// it. One round trip either way.
CALL () {
  MATCH (m:Memory)
  WHERE m.group_id = $group AND m.type IN $types
  WITH m LIMIT $cap + 1
  RETURN count(m) AS records
}
CALL () {
  CALL () {
    MATCH (m:Memory) WHERE m.group_id = $group AND m.type IN $types AND m.at <= $as_of
    RETURN m
    UNION ALL
    MATCH (m:Memory) WHERE m.group_id = $group AND m.first_at <= $as_of AND m.type IN $types
    RETURN m
  }
  WITH m LIMIT $cap + 1
  RETURN count(m) AS records_then
}
CALL () {
  MATCH (m:Memory) RETURN count(m) AS all_records
}
CALL () {
  MATCH (m:Claim) RETURN count(m) AS all_claims
}
RETURN records, records_then, all_records, all_claims
