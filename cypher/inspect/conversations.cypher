// The conversations of a group and whether their ingest completed.
MATCH (c:Conversation {group_id: $group})
RETURN c.id AS id, c.source_id AS source_id, c.complete AS complete, c.speakers AS speakers
ORDER BY c.source_id
