// A live writer's heartbeat (one :CogmemMeta node per writer, keyed 'writer:<owner>', with
// the host and process it runs in): while it beats, the outbox entries it holds are its
// own; once its beat is older than the lease, or its process is gone from its host, another
// writer may take them (live/claim_pending).
MERGE (w:CogmemMeta {key: 'writer:' + $owner})
SET w.kind = 'live_writer', w.beat = timestamp(), w.host = $host, w.pid = $pid
RETURN w.beat AS beat
