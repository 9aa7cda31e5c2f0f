// Delete the outbox entry of a live turn (live/store_pending), in the transaction that
// writes the turn.
MATCH (p:CogmemMeta {key: $key})
WHERE p.kind = 'pending_turn'
DELETE p
RETURN count(*) AS dropped
