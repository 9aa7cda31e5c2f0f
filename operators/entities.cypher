// Person entities of a group with their aliases (the router matches question words to them).
// $as_of (null: now): only what was said by then, each record with the status it had
// then (see operators/README.md).
MATCH (p:Memory:Person {group_id: $group})
WHERE ($as_of IS NULL OR coalesce(p.at, p.first_at) <= $as_of)
RETURN p.id AS id, p.name AS name, coalesce(p.aliases, []) AS aliases
ORDER BY id
