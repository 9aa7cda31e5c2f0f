// Take the outbox entries of group $group that no live writer holds: those that never had
// an owner, whose owner is in $free (a process found gone from this host), or whose owner's
// heartbeat (live/writer_beat) is gone or older than $lease_ms by the database's clock.
// Writer $owner holds them from now on; oldest first, the order they were queued in. Claims
// of one group take turns (its claim lock, held until commit), so a second resumer finds
// the entries held by the first; and should two writers still both queue one entry, only
// the one whose name the entry carries at its write commits it (live/drop_pending).
MERGE (lock:CogmemMeta {key: 'claim:' + $group})
SET lock.kind = 'claim_lock', lock.group_id = $group, lock.claims = coalesce(lock.claims, 0) + 1
WITH lock
MATCH (p:CogmemMeta)
WHERE p.kind = 'pending_turn' AND p.group_id = $group AND coalesce(p.owner, '') <> $owner
OPTIONAL MATCH (w:CogmemMeta {key: 'writer:' + coalesce(p.owner, '')})
WITH p, w
WHERE p.owner IS NULL OR p.owner IN $free OR w IS NULL OR w.beat < timestamp() - $lease_ms
SET p.owner = $owner, p.claimed_ms = timestamp()
RETURN p.key AS key, p.conversation AS conversation, p.session AS session,
       p.speaker AS speaker, p.text AS text, p.at AS at, p.source_id AS source_id
ORDER BY p.queued_ns
