// The times a search as of a date reads (schema version 4), for records written before
// cogmem kept them: an entity's first_at (its earliest evidence turn), a record's
// first_status (its status when said: a superseded claim was CURRENT, a superseded plan
// PLANNED) and valid_to (when the first record that superseded it was said), and each
// relationship's at (admin/backfill_relationship_times). Idempotent: only what is
// missing is written, in batches; a Memory's first use of an older store runs it once.
MATCH (m:Memory)
WHERE (m.at IS NULL AND m.first_at IS NULL)
   OR (m.first_status IS NULL AND m.status IS NOT NULL)
   OR (m.status = 'SUPERSEDED' AND m.valid_to IS NULL)
CALL (m) {
  OPTIONAL MATCH (m)-[:EVIDENCED_BY]->(t:Turn)
  WITH m, min(t.at) AS first
  OPTIONAL MATCH (later:Memory)-[:SUPERSEDES]->(m)
  WITH m, first, min(later.at) AS replaced
  SET m.first_at = CASE WHEN m.at IS NULL THEN coalesce(m.first_at, first) ELSE m.first_at END,
      m.first_status = coalesce(m.first_status,
                                CASE WHEN m.status <> 'SUPERSEDED' THEN m.status
                                     WHEN m:Claim THEN 'CURRENT'
                                     ELSE 'PLANNED' END),
      m.valid_to = CASE WHEN m.status = 'SUPERSEDED' THEN coalesce(m.valid_to, replaced)
                        ELSE m.valid_to END
} IN TRANSACTIONS OF 5000 ROWS
RETURN count(m) AS records
