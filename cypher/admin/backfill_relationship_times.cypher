// Each relationship between records written before cogmem kept when it was said gets `at`:
// when the later of its two records was said (an entity has none: the record's). Runs
// with admin/backfill_validity, once, on a store of schema version 3 or older; idempotent.
MATCH (a:Memory)-[r]->(b:Memory)
WHERE r.at IS NULL AND coalesce(a.at, b.at) IS NOT NULL
CALL (a, r, b) {
  SET r.at = CASE WHEN a.at IS NULL THEN b.at
                  WHEN b.at IS NULL THEN a.at
                  WHEN a.at > b.at THEN a.at ELSE b.at END
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(r) AS relationships
