// Write a batch of turns with their sessions: Conversation-HAS_SESSION->Session-HAS_TURN->Turn,
// then chain consecutive turns, (a)-[:NEXT]->(b) for each of $pairs (one round trip for both).
// Every property comes from the $turns rows; ids are deterministic, so a rerun changes nothing.
// Vectors are stored as float32 arrays (half the store and twice as fast to scan as lists
// of doubles; the embedders' vectors are float32 already).
// Every write that adds or replaces vectors bumps the group's vector sequence (one
// :CogmemMeta node per group, locked until commit, so writes of a group number in commit
// order) and stamps its nodes with it: searches refresh their in-process vectors by it.
// said_key: the UTC day the turn was said as one token (d20250330) in the turn_text
// index (cypher/schema), so Lucene drops what was said after a search's as-of day.
MERGE (vs:CogmemMeta {key: 'vectors:' + $group})
SET vs.seq = coalesce(vs.seq, 0) + 1
WITH vs.seq AS vseq
UNWIND $turns AS t
MATCH (c:Conversation {id: t.conversation_id})
MERGE (s:Session {id: t.session_id})
ON CREATE SET s.created_at = datetime()
SET s.group_id = t.props.group_id,
    s.group_key = t.props.group_key,
    s.conversation_id = t.conversation_id,
    s.index = t.session_index,
    s.date_text = t.session_date_text,
    s.at = t.session_at
MERGE (c)-[:HAS_SESSION]->(s)
MERGE (n:Turn {id: t.id})
ON CREATE SET n.created_at = datetime()
SET n += t.props, n.vseq = vseq,
    // the UTC day it was said, a Lucene term: a search as of a date filters by it
    n.said_key = CASE WHEN t.props.at IS NULL THEN null
                 ELSE 'd' + replace(toString(date(datetime(
                   {datetime: t.props.at, timezone: 'UTC'}))), '-', '') END
MERGE (s)-[:HAS_TURN]->(n)
WITH n, t
CALL (n, t) {
  WITH n, t WHERE t.props.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(n, 'embedding', t.props.embedding)  // stored as float32
}
WITH count(n) AS turns
CALL () {
  UNWIND $pairs AS p
  MATCH (a:Turn {id: p.from})
  MATCH (b:Turn {id: p.to})
  MERGE (a)-[:NEXT]->(b)
  RETURN count(*) AS links
}
RETURN turns, links
