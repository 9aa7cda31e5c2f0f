// Delete the live-writing state of group $group (forgetting the group): its outbox entries
// and its conversations' append locks.
MATCH (p:CogmemMeta)
WHERE p.kind IN ['pending_turn', 'append_lock'] AND p.group_id = $group
DELETE p
RETURN count(*) AS dropped
