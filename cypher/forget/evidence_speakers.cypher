// Forgetting (issue 50): evidence a speaker's Person by their first turn that stays in a
// conversation, rows {person, turn}, as ingest evidences it by their first turn there.
UNWIND $rows AS r
MATCH (p:Memory:Person {id: r.person})
MATCH (t:Turn {id: r.turn})
WHERE p.group_id = $group AND t.group_id = $group
MERGE (p)-[:EVIDENCED_BY]->(t)
RETURN count(*) AS evidenced
