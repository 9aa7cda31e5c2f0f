// How many turns and memory records group $group holds, counted through the group_id
// indexes up to $cap + 1 (a larger group counts as $cap + 1: it is large, how large does
// not matter), and how many the whole store holds (from the count store; its claims apart,
// for claim_embedding): whether a vector search scans the group exactly or asks the shared
// HNSW index, and how far it over-fetches. As of $as_of (null: now, and then both are 0),
// also how many of them had been said by then, counted through the (group_id, at) and
// (group_id, first_at) indexes up to $as_of_cap + 1: a group that held few nodes then is
// scanned exactly (nearest_*_as_of). $kind 'turns' or 'records' counts the group's turns
// or its records alone (the other's counts are 0): a search's turn and record asks count
// theirs at once, each waiting on its own; null counts both. One round trip either way.
// (each branch seeks a group id that is null, and so finds nothing, unless it is asked)
CALL () {
  MATCH (t:Turn) WHERE t.group_id = CASE WHEN coalesce($kind, 'turns') = 'turns' THEN $group END
  WITH t LIMIT $cap + 1
  RETURN count(t) AS turns
}
CALL () {
  MATCH (m:Memory)
  WHERE m.group_id = CASE WHEN coalesce($kind, 'records') = 'records' THEN $group END
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
CALL () {
  MATCH (t:Turn)
  WHERE t.group_id = CASE WHEN coalesce($kind, 'turns') = 'turns' THEN $group END
    AND t.at <= $as_of
  WITH t LIMIT $as_of_cap + 1
  RETURN count(t) AS turns_then
}
CALL () {
  CALL () {
    MATCH (m:Memory)
    WHERE m.group_id = CASE WHEN coalesce($kind, 'records') = 'records' THEN $group END
      AND m.at <= $as_of
    RETURN m
    UNION ALL
    MATCH (m:Memory)
    WHERE m.group_id = CASE WHEN coalesce($kind, 'records') = 'records' THEN $group END
      AND m.first_at <= $as_of
    RETURN m
  }
  WITH m LIMIT $as_of_cap + 1
  RETURN count(m) AS records_then
}
RETURN turns, records, all_turns, all_records, all_claims, turns_then, records_then
