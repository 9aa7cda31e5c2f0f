// Nodes carrying group_id $group whatever their labels, and the relationships touching them
// (a full scan: for checks that nothing of a group is left, not for hot paths).
MATCH (n)
WHERE n.group_id = $group
OPTIONAL MATCH (n)-[r]-()
RETURN count(DISTINCT n) AS nodes, count(DISTINCT r) AS relationships
