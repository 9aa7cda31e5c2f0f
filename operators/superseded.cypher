// What claims $ids replaced: each claim's SUPERSEDES targets (older claims), verbatim.
MATCH (c:Memory)-[:SUPERSEDES]->(old:Memory)
WHERE c.id IN $ids AND c.group_id = $group AND old.group_id = $group
RETURN c.id AS id, old.id AS old_id, old.quote AS quote, old.at.epochSeconds AS at_s,
       old.turn_source_id AS turn_source_id
ORDER BY c.id, old.at
