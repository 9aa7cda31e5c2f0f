// The writers that hold outbox entries of group $group, with the host and process id their
// heartbeat names (null when they left none): a writer on this host whose process is gone
// has stopped, and what it held may be taken at once (live/claim_pending $free).
MATCH (p:CogmemMeta)
WHERE p.kind = 'pending_turn' AND p.group_id = $group AND p.owner IS NOT NULL
WITH DISTINCT p.owner AS owner
OPTIONAL MATCH (w:CogmemMeta {key: 'writer:' + owner})
RETURN owner, w.host AS host, w.pid AS pid
