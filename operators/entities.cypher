// Person entities of a group with their aliases (the router matches question words to them).
MATCH (p:Memory:Person {group_id: $group})
RETURN p.id AS id, p.name AS name, coalesce(p.aliases, []) AS aliases
ORDER BY id
