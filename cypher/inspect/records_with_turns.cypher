// Every memory record of a group with the turns that evidence it (for inspection and tests).
MATCH (m:Memory {group_id: $group})
OPTIONAL MATCH (m)-[:EVIDENCED_BY]->(t:Turn)
RETURN m.id AS id, m.type AS type, m.name AS name, m.content AS content, m.quote AS quote,
       m.speaker AS speaker, m.source AS source, m.target AS target, m.status AS status,
       m.time_text AS time_text, m.time_start AS time_start, m.time_end AS time_end,
       collect(t.full_text) AS turn_texts
ORDER BY id
