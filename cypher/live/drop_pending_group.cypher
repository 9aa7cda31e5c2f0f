// Delete the live-writing state of group $group (forgetting the group): its outbox entries
// its conversations' append locks and its claim lock.
MATCH (p:CogmemMeta)
WHERE p.kind IN ['pending_turn', 'append_lock', 'claim_lock'] AND p.group_id = $group
DELETE p
RETURN count(*) AS dropped
