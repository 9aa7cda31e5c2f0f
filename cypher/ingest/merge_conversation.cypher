// Create or update a conversation node. complete=false until its last batch is written,
// so an interrupted ingest is visible and a rerun completes it (every write is a MERGE).
// Speakers accumulate in order of first appearance (a live chat adds them turn by turn);
// the format is the first writer's.
MERGE (c:Conversation {id: $id})
ON CREATE SET c.created_at = datetime()
SET c.group_id = $group_id,
    c.group_key = $group_key,
    c.source_id = $source_id,
    c.speakers = reduce(acc = coalesce(c.speakers, []), s IN $speakers |
                        CASE WHEN s IN acc THEN acc ELSE acc + s END),
    c.source_format = coalesce(c.source_format, $source_format),
    c.complete = coalesce(c.complete, false)
RETURN c.id AS id, c.complete AS complete
