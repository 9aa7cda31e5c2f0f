// A group's memory records by stored type label (a KeyFact is stored as a :Fact).
MATCH (m:Memory {group_id: $group})
UNWIND labels(m) AS label
WITH label
WHERE label <> 'Memory'
RETURN label, count(*) AS count
ORDER BY label
