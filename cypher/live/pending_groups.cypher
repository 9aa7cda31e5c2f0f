// The groups that have live turns queued and not written (live/pending_turns).
MATCH (p:CogmemMeta)
WHERE p.kind = 'pending_turn'
RETURN DISTINCT p.group_id AS group
