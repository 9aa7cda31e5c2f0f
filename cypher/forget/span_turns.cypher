// Forgetting (issue 50): the turns of group $group said from $start to $end (both included),
// by $speaker (case-insensitive) when it is not null; by the (group_id, at) range index.
MATCH (t:Turn {group_id: $group})
WHERE t.at >= $start AND t.at <= $end
  AND ($speaker IS NULL OR toLower(t.speaker) = toLower($speaker))
MATCH (c:Conversation {id: t.conversation_id})
RETURN t.id AS id, t.source_id AS source_id, c.source_id AS conversation, t.at AS at
ORDER BY c.source_id, t.idx
