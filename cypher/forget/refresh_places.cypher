// Forgetting (issue 50): what sessions and conversations of group $group say of their turns,
// read again from the turns that stay: a session's time is its last turn's (as ingest writes
// it); a conversation's speakers, unless its source declares them (LoCoMo), are those who
// speak in it, in order of their first turn.
CALL () {
  UNWIND $sessions AS sid
  MATCH (s:Session {id: sid})-[:HAS_TURN]->(t:Turn)
  WHERE s.group_id = $group
  WITH s, t ORDER BY t.idx DESC
  WITH s, head(collect(t)) AS last
  SET s.at = last.at
  RETURN count(s) AS sessions
}
CALL () {
  UNWIND $conversations AS cid
  MATCH (c:Conversation {id: cid})-[:HAS_SESSION]->(:Session)-[:HAS_TURN]->(t:Turn)
  WHERE c.group_id = $group AND coalesce(c.source_format, '') <> 'locomo'
  WITH c, t ORDER BY t.idx
  WITH c, collect(t.speaker) AS said
  SET c.speakers = reduce(acc = [], s IN said | CASE WHEN s IN acc THEN acc ELSE acc + s END)
  RETURN count(c) AS conversations
}
RETURN sessions, conversations
