// Input of artifact linking: the records of the group whose type is in $types (consolidated
// Facts excluded), with their conversation, the turn they came from (position, session, text)
// and their vector.
MATCH (m:Memory {group_id: $group_id})
WHERE m.type IN $types AND coalesce(m.consolidated, false) = false
OPTIONAL MATCH (m)-[:EVIDENCED_BY]->(t:Turn {group_id: $group_id})
WITH m, t ORDER BY t.idx
WITH m, head(collect(t)) AS t
RETURN m.id AS id, m.type AS type, m.content AS content, m.quote AS quote, m.at AS at,
       m.embedding AS embedding, coalesce(m.conversation_id, t.conversation_id) AS conversation_id,
       t.idx AS turn_idx, t.session_id AS session_id, t.full_text AS turn_text
ORDER BY conversation_id, turn_idx, id
