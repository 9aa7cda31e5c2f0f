// Forgetting (issue 50): the memory records that rest on the turns $turns (node ids) of group
// $group. A record goes when its own turn (turn_id: its quote and content are words of that
// turn) is one of them, or when every turn that evidences it is. Consolidated Facts are left
// to the facts rule (forget/fact_pairs). Entities come with `entity` set; a Person may still
// be kept by the caller (someone who speaks in a turn that stays). Claims carry their speaker
// and target names (the pairs to reconcile again); `superseded`: the records it SUPERSEDES by
// a plan link (no job), `conflicts`: the claims it CONFLICTS_WITH, `concepts`: what it is ABOUT
// (a LIKES / DISLIKES / USES edge made from it ends there).
UNWIND $turns AS tid
MATCH (t:Turn {id: tid})
WHERE t.group_id = $group
MATCH (m:Memory)-[:EVIDENCED_BY]->(t)
WHERE m.group_id = $group AND coalesce(m.consolidated, false) = false
WITH DISTINCT m
WHERE m.turn_id IN $turns
   OR NOT EXISTS { MATCH (m)-[:EVIDENCED_BY]->(k:Turn) WHERE NOT k.id IN $turns }
RETURN m.id AS id, m.type AS type, (m:Person OR m:Concept) AS entity, m:Person AS person,
       m:Event AS event, m:Claim AS claim,
       CASE WHEN m:Claim THEN [m.source, m.speaker] ELSE [] END AS claim_sources,
       CASE WHEN m:Claim THEN [m.target] ELSE [] END AS claim_targets,
       [(s:Person)-[:CLAIMS]->(m) WHERE s.group_id = $group | s.name] AS source_names,
       [(m)-[:TARGETS]->(x) WHERE x.group_id = $group | x.name] AS target_names,
       [(m)-[x:SUPERSEDES]->(b:Memory) WHERE x.job IS NULL | b.id] AS superseded,
       [(m)-[:CONFLICTS_WITH]->(b:Claim) | b.id] AS conflicts,
       [(m)-[:ABOUT]->(c:Concept) | c.id] AS concepts
ORDER BY id
