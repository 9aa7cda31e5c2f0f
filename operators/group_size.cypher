// How many turns and memory records group $group holds (through the group_id indexes), and
// how many the whole store holds (from the count store): whether a vector search scans the
// group exactly or asks the shared HNSW index, and how far it must over-fetch.
CALL () {
  MATCH (t:Turn) WHERE t.group_id = $group RETURN count(t) AS turns
}
CALL () {
  MATCH (m:Memory) WHERE m.group_id = $group RETURN count(m) AS records
}
CALL () {
  MATCH (t:Turn) RETURN count(t) AS all_turns
}
CALL () {
  MATCH (m:Memory) RETURN count(m) AS all_records
}
RETURN turns, records, all_turns, all_records
