// What a fact is supported by
// The facts whose content contains $fact (any case): who holds each, what it is about, the
// events it was consolidated from (SUPPORTED_BY) with their turns, the facts it superseded,
// and the turns that evidence it, verbatim.
// In Neo4j Browser first set, e.g.:  :param group => "default"   :param fact => "pottery"
MATCH (f:Memory:Fact {group_id: $group})
WHERE toLower(f.content) CONTAINS toLower($fact)
RETURN f,
       COLLECT { MATCH h = (:Memory:Person)-[:HAS_FACT]->(f) RETURN h } AS holders,
       COLLECT { MATCH a = (f)-[:ABOUT]->(:Memory) RETURN a } AS about,
       COLLECT { MATCH s = (f)-[:SUPPORTED_BY]->(:Memory)-[:EVIDENCED_BY]->(:Turn) RETURN s } AS support,
       COLLECT { MATCH r = (f)-[:SUPERSEDES]->(:Memory:Fact) RETURN r } AS replaced,
       COLLECT { MATCH e = (f)-[:EVIDENCED_BY]->(:Turn) RETURN e } AS evidence
LIMIT 50
