// Retire consolidated Facts whose clusters were joined into another one (a later event bridged
// them): the surviving Fact SUPERSEDES the retired one, whose status becomes SUPERSEDED.
// Nothing is deleted. Rows: {id, by}.
// Every write that changes what a search reads of a node bumps the group's vector sequence (one
// :CogmemMeta node per group, locked until commit, so writes of a group number in commit
// order) and stamps its nodes with it: searches refresh their in-process vectors by it.
MERGE (vs:CogmemMeta {key: 'vectors:' + $group_id})
SET vs.seq = coalesce(vs.seq, 0) + 1
WITH vs.seq AS vseq
UNWIND $rows AS r
MATCH (old:Memory:Fact {id: r.id, group_id: $group_id, consolidated: true})
MATCH (new:Memory:Fact {id: r.by, group_id: $group_id, consolidated: true})
SET old.status = 'SUPERSEDED', old.vseq = vseq, new.vseq = vseq  // both ends of SUPERSEDES
MERGE (new)-[x:SUPERSEDES]->(old)
SET x.job = 'consolidate'
RETURN count(old) AS retired
