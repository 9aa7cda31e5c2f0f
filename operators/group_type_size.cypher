// How many memory records of group $group have one of the types $types, counted through the
// (group_id, type) index up to $cap + 1 (more counts as $cap + 1): whether a typed vector
// search scans them exactly (nearest_records_typed) or asks the shared HNSW index.
MATCH (m:Memory)
WHERE m.group_id = $group AND m.type IN $types
WITH m LIMIT $cap + 1
RETURN count(m) AS records
