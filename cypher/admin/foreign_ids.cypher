// Import guard: which of the ids $ids already belong to a node of another group than $group.
CALL {
  MATCH (n:Memory) WHERE n.id IN $ids RETURN n
  UNION
  MATCH (n:Turn) WHERE n.id IN $ids RETURN n
  UNION
  MATCH (n:Session) WHERE n.id IN $ids RETURN n
  UNION
  MATCH (n:Conversation) WHERE n.id IN $ids RETURN n
}
WITH n
WHERE n.group_id IS NULL OR n.group_id <> $group
RETURN n.id AS id, n.group_id AS group_id
LIMIT 10
