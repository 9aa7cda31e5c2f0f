// What claims $ids replaced: each claim's SUPERSEDES targets (older claims), verbatim.
// $as_of (null: now): only what was said by then, each record with the status it had
// then (see operators/README.md).
MATCH (c:Memory)-[:SUPERSEDES]->(old:Memory)
WHERE c.id IN $ids AND c.group_id = $group AND old.group_id = $group
  AND ($as_of IS NULL OR coalesce(old.at, old.first_at) <= $as_of)
RETURN c.id AS id, old.id AS old_id, old.quote AS quote, old.at.epochSeconds AS at_s,
       old.at.offsetSeconds AS at_off,
       old.turn_source_id AS turn_source_id
ORDER BY c.id, old.at
