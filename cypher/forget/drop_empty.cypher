// Forgetting (issue 50): the sessions ($sessions) and then conversations ($conversations) of
// group $group that hold no turn any more are deleted; returns how many of each.
CALL () {
  UNWIND $sessions AS sid
  MATCH (s:Session {id: sid})
  WHERE s.group_id = $group AND NOT EXISTS { (s)-[:HAS_TURN]->() }
  DETACH DELETE s
  RETURN count(*) AS sessions
}
CALL () {
  UNWIND $conversations AS cid
  MATCH (c:Conversation {id: cid})
  WHERE c.group_id = $group AND NOT EXISTS { (c)-[:HAS_SESSION]->() }
  DETACH DELETE c
  RETURN count(*) AS conversations
}
RETURN sessions, conversations
