// Delete the outbox entry of a live turn (live/store_pending), in the transaction that
// writes the turn, if writer $owner still holds it: 0 rows dropped means another writer took
// it (this one's lease ran out) or wrote it already, and the transaction is abandoned, so a
// stored turn is written exactly once.
OPTIONAL MATCH (p:CogmemMeta {key: $key})
WHERE p.kind = 'pending_turn' AND p.owner = $owner
DELETE p
RETURN count(p) AS dropped
