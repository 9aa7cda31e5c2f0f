// Export: the relationships that start at the nodes $ids of group $group and end inside
// the group, as type, the ids of both ends and properties.
CALL {
  MATCH (a:Memory) WHERE a.id IN $ids RETURN a
  UNION
  MATCH (a:Turn) WHERE a.id IN $ids RETURN a
  UNION
  MATCH (a:Session) WHERE a.id IN $ids RETURN a
  UNION
  MATCH (a:Conversation) WHERE a.id IN $ids RETURN a
}
WITH a
WHERE a.group_id = $group
MATCH (a)-[r]->(b)
WHERE b.group_id = $group
RETURN type(r) AS type, a.id AS src, b.id AS dst, properties(r) AS props
ORDER BY src, type, dst
