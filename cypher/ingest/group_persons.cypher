// The persons already known in a group (canonical name and aliases), to resolve new mentions.
MATCH (p:Memory:Person {group_id: $group_id})
RETURN p.name AS name, coalesce(p.aliases, []) AS aliases
