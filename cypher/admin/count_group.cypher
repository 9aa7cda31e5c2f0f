// Node and relationship counts of one group, by label / relationship type.
CALL {
  MATCH (n:Memory {group_id: $group}) RETURN n
  UNION
  MATCH (n:Turn {group_id: $group}) RETURN n
  UNION
  MATCH (n:Session {group_id: $group}) RETURN n
  UNION
  MATCH (n:Conversation {group_id: $group}) RETURN n
}
WITH collect(n) AS nodes
CALL (nodes) {
  UNWIND nodes AS n
  UNWIND labels(n) AS label
  RETURN collect(label) AS labels
}
CALL (nodes) {
  UNWIND nodes AS n
  MATCH (n)-[r]->()
  RETURN collect(type(r)) AS types
}
RETURN size(nodes) AS nodes, labels, types
