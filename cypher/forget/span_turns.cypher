// Forgetting (issue 50): the turns of group $group said from $start to $end (both included),
// by $speaker (case-insensitive) when it is not null. The (group_id, at) range index finds
// them between $lo and $hi (the span widened by a second); the instants are compared as
// epoch milliseconds, since Cypher orders two datetimes of one instant by their zone
// (19:00+01:00 is not >= 18:00Z).
MATCH (t:Turn {group_id: $group})
WHERE t.at >= $lo AND t.at <= $hi
  AND $start_ms <= t.at.epochMillis AND t.at.epochMillis <= $end_ms
  AND ($speaker IS NULL OR toLower(t.speaker) = toLower($speaker))
MATCH (c:Conversation {id: t.conversation_id})
RETURN t.id AS id, t.source_id AS source_id, c.source_id AS conversation, t.at AS at
ORDER BY c.source_id, t.idx
