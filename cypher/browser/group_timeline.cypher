// A group's timeline
// The group's conversations, their sessions and the first 60 turns in time order, with the
// memory records each turn evidences: the whole memory at a glance (Browser draws the NEXT
// edges between the turns when "Connect result nodes" is on, its default).
// In Neo4j Browser first set, e.g.:  :param group => "default"
MATCH path = (:Conversation {group_id: $group})-[:HAS_SESSION]->(:Session)-[:HAS_TURN]->(t:Turn)
WITH path, t
ORDER BY t.at, t.idx
LIMIT 60
RETURN path, COLLECT { MATCH e = (:Memory)-[:EVIDENCED_BY]->(t) RETURN e } AS records
