// Forgetting (issue 50): the input of artifact linking (consolidation/link_candidates, same
// columns) for the records of group $group in conversations $conversations only.
MATCH (m:Memory {group_id: $group})
WHERE m.type IN $types AND coalesce(m.consolidated, false) = false
  AND m.conversation_id IN $conversations
OPTIONAL MATCH (m)-[:EVIDENCED_BY]->(t:Turn {group_id: $group})
WITH m, t ORDER BY t.idx
WITH m, head(collect(t)) AS t
RETURN m.id AS id, m.type AS type, m.content AS content, m.quote AS quote, m.at AS at,
       m.embedding AS embedding, coalesce(m.conversation_id, t.conversation_id) AS conversation_id,
       t.idx AS turn_idx, t.session_id AS session_id, t.full_text AS turn_text
ORDER BY conversation_id, turn_idx, id
