// The persons of a group with their aliases, to bring claim sources and targets to one name.
MATCH (p:Memory:Person {group_id: $group_id})
RETURN p.id AS id, p.name AS name, coalesce(p.aliases, []) AS aliases
ORDER BY id
