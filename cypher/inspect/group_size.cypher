// How many memory records and turns a group holds (index-backed counts).
CALL {
  MATCH (m:Memory {group_id: $group})
  RETURN count(m) AS records
}
CALL {
  MATCH (t:Turn {group_id: $group})
  RETURN count(t) AS turns
}
RETURN records, turns
