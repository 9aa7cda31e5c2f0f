// How many turns and memory records group $group holds, counted through the group_id
// indexes up to $cap + 1 (a larger group counts as $cap + 1: it is large, how large does
// not matter), and how many the whole store holds (from the count store; its claims apart,
// for claim_embedding): whether a vector search scans the group exactly or asks the shared
// HNSW index, and how far it over-fetches.
CALL () {
  MATCH (t:Turn) WHERE t.group_id = $group
  WITH t LIMIT $cap + 1
  RETURN count(t) AS turns
}
CALL () {
  MATCH (m:Memory) WHERE m.group_id = $group
  WITH m LIMIT $cap + 1
  RETURN count(m) AS records
}
CALL () {
  MATCH (t:Turn) RETURN count(t) AS all_turns
}
CALL () {
  MATCH (m:Memory) RETURN count(m) AS all_records
}
CALL () {
  MATCH (m:Claim) RETURN count(m) AS all_claims
}
RETURN turns, records, all_turns, all_records, all_claims
