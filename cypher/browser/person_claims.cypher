// A person's claims and their history
// What $person (a name or alias, any case) claims, the person or thing each claim targets,
// and each claim's history: the SUPERSEDES chain back to the opinions it replaced, and any
// CONFLICTS_WITH. A claim's caption starts with its status (CURRENT, SUPERSEDED, CONFLICTING).
// In Neo4j Browser first set, e.g.:  :param group => "default"   :param person => "Priya"
MATCH (p:Memory:Person {group_id: $group})
WHERE toLower(p.name) = toLower($person)
   OR toLower($person) IN [a IN coalesce(p.aliases, []) | toLower(a)]
MATCH claim = (p)-[:CLAIMS]->(cl:Memory:Claim)
RETURN claim,
       COLLECT { MATCH t = (cl)-[:TARGETS]->(:Memory) RETURN t } AS targets,
       COLLECT { MATCH h = (cl)-[:SUPERSEDES|CONFLICTS_WITH*1..10]-(:Memory:Claim) RETURN h } AS history
LIMIT 200
