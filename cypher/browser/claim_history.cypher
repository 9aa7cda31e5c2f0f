// How opinions by or about a person changed, oldest first (a table)
// Every claim that $person made, or that targets $person, in the order it was said: who said
// it, about whom or what, its reconciliation status, the verbatim quote, the turn it came
// from, and the claims it superseded or conflicts with.
// In Neo4j Browser first set, e.g.:  :param group => "default"   :param person => "Priya"
MATCH (cl:Memory:Claim {group_id: $group})
WHERE toLower(cl.speaker) = toLower($person)
   OR toLower(cl.source) = toLower($person)
   OR toLower(cl.target) = toLower($person)
RETURN cl.at AS said_at,
       coalesce(cl.source, cl.speaker) AS holder,
       cl.target AS about,
       cl.status AS status,
       cl.content AS claim,
       cl.quote AS quote,
       cl.turn_source_id AS turn,
       COLLECT { MATCH (cl)-[:SUPERSEDES]->(old:Memory:Claim) RETURN old.content } AS supersedes,
       COLLECT { MATCH (cl)-[:CONFLICTS_WITH]-(other:Memory:Claim) RETURN other.content } AS conflicts_with
ORDER BY said_at, turn
