// Forgetting (issue 50): the persons of $ids (group $group) that have aliases, with the texts
// of the turns that evidence them now: an alias stays while one of those turns says it.
UNWIND $ids AS eid
MATCH (p:Memory:Person {id: eid})
WHERE p.group_id = $group AND size(coalesce(p.aliases, [])) > 0
RETURN p.id AS id, p.aliases AS aliases,
       [(p)-[:EVIDENCED_BY]->(t:Turn) | t.full_text] AS texts
