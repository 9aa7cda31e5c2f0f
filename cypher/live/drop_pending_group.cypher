// Delete the outbox entries of group $group (forgetting the group).
MATCH (p:CogmemMeta)
WHERE p.kind = 'pending_turn' AND p.group_id = $group
DELETE p
RETURN count(*) AS dropped
