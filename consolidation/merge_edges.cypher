// Write the edges of the reconciliation and linking jobs between memory records of one group.
// The type comes from the fixed list below (a row with any other type writes nothing);
// e.props become relationship properties (job, rule, similarity...). MERGE: no duplicates.
// Both ends of every relationship written are stamped with a bumped vector sequence (one
// :CogmemMeta node per group, locked until commit): searches read their relationships again.
MERGE (vs:CogmemMeta {key: 'vectors:' + $group_id})
SET vs.seq = coalesce(vs.seq, 0) + 1
WITH vs.seq AS vseq
UNWIND $edges AS e
MATCH (a:Memory {id: e.src, group_id: $group_id})
MATCH (b:Memory {id: e.dst, group_id: $group_id})
SET a.vseq = vseq, b.vseq = vseq
FOREACH (_ IN CASE WHEN e.type = 'SUPERSEDES' THEN [1] ELSE [] END |
  MERGE (a)-[x:SUPERSEDES]->(b) SET x += e.props)
FOREACH (_ IN CASE WHEN e.type = 'CONFLICTS_WITH' THEN [1] ELSE [] END |
  MERGE (a)-[x:CONFLICTS_WITH]->(b) SET x += e.props)
FOREACH (_ IN CASE WHEN e.type = 'REFERENCES' THEN [1] ELSE [] END |
  MERGE (a)-[x:REFERENCES]->(b) SET x += e.props)
FOREACH (_ IN CASE WHEN e.type = 'CAUSES' THEN [1] ELSE [] END |
  MERGE (a)-[x:CAUSES]->(b) SET x += e.props)
RETURN count(*) AS edges
