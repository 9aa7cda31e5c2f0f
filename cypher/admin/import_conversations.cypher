// Import: create or replace Conversation nodes from $nodes rows {id, props}. Only nodes of group
// $group are written (a node of another group with the same id is left alone, and the
// returned count tells). props hold every property, id and group_id included.
UNWIND $nodes AS row
MERGE (n:Conversation {id: row.id})
ON CREATE SET n.group_id = $group
WITH n, row
WHERE n.group_id = $group
SET n = row.props
RETURN count(n) AS nodes
