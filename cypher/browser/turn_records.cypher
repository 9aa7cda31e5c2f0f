// A turn's records
// The turn(s) with source id $turn (e.g. "D1:3", or "T4" for a turn added live), their
// session, the turns just before and after, every memory record that quotes them
// (EVIDENCED_BY), and the people and concepts those records link to.
// In Neo4j Browser first set, e.g.:  :param group => "default"   :param turn => "D1:3"
MATCH (t:Turn {group_id: $group, source_id: $turn})
RETURN t,
       COLLECT { MATCH s = (:Session)-[:HAS_TURN]->(t) RETURN s } AS session,
       COLLECT { MATCH n = (t)-[:NEXT]-(:Turn) RETURN n } AS around,
       COLLECT { MATCH e = (:Memory)-[:EVIDENCED_BY]->(t) RETURN e } AS records,
       COLLECT {
         MATCH (m:Memory)-[:EVIDENCED_BY]->(t)
         MATCH l = (m)-[:CLAIMS|TARGETS|INVOLVES|ABOUT|PARTICIPATED_IN|HAS_FACT]-(:Memory)
         RETURN l
       } AS linked
LIMIT 20
