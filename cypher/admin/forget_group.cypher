// Delete up to $batch nodes of group $group (and their relationships); returns how many.
// Call repeatedly until it returns 0. Only nodes carrying that exact group_id are touched
// (the group's forget audit entries too: the whole group goes).
CALL {
  MATCH (n:Memory {group_id: $group}) RETURN n
  UNION
  MATCH (n:Turn {group_id: $group}) RETURN n
  UNION
  MATCH (n:Session {group_id: $group}) RETURN n
  UNION
  MATCH (n:Conversation {group_id: $group}) RETURN n
  UNION
  MATCH (n:ForgetAudit {group_id: $group}) RETURN n
}
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted
