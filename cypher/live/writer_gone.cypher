// A live writer that closes removes its heartbeat (live/writer_beat): what it still held
// is free to claim at once.
MATCH (w:CogmemMeta {key: 'writer:' + $owner})
DELETE w
RETURN count(*) AS removed
