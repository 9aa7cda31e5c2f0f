// The UTC day each turn and record was said, as the Lucene term the fulltext indexes filter
// a search as of a date by (schema version 6; ingest/merge_turns writes it since), for
// nodes written before: from `at`, an entity's from `first_at` (admin/backfill_validity
// runs first). Idempotent: only nodes without one, in batches.
CALL () {
  MATCH (n:Turn) WHERE n.said_key IS NULL AND n.at IS NOT NULL RETURN n
  UNION ALL
  MATCH (n:Memory) WHERE n.said_key IS NULL AND coalesce(n.at, n.first_at) IS NOT NULL
  RETURN n
}
CALL (n) {
  SET n.said_key = CASE WHEN coalesce(n.at, n.first_at) IS NULL THEN null
                   ELSE 'd' + replace(toString(date(datetime(
                     {datetime: coalesce(n.at, n.first_at), timezone: 'UTC'}))), '-', '') END
} IN TRANSACTIONS OF 5000 ROWS
RETURN count(n) AS nodes
