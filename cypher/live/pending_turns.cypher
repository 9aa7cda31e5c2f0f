// The live turns of group $group that were queued and not written (a server stopped
// before their write), oldest first: a restarted server writes them in this order.
MATCH (p:CogmemMeta)
WHERE p.kind = 'pending_turn' AND p.group_id = $group
RETURN p.key AS key, p.conversation AS conversation, p.session AS session,
       p.speaker AS speaker, p.text AS text, p.at AS at, p.source_id AS source_id
ORDER BY p.queued_ns
