// Write a batch of turns with their sessions: Conversation-HAS_SESSION->Session-HAS_TURN->Turn.
// Every property comes from the $turns rows; ids are deterministic, so a rerun changes nothing.
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
SET n += t.props
MERGE (s)-[:HAS_TURN]->(n)
RETURN count(n) AS turns
