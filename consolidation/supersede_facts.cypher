// Retire consolidated Facts whose clusters were joined into another one (a later event bridged
// them): the surviving Fact SUPERSEDES the retired one, whose status becomes SUPERSEDED.
// Nothing is deleted. Rows: {id, by}.
UNWIND $rows AS r
MATCH (old:Memory:Fact {id: r.id, group_id: $group_id, consolidated: true})
MATCH (new:Memory:Fact {id: r.by, group_id: $group_id, consolidated: true})
SET old.status = 'SUPERSEDED'
MERGE (new)-[x:SUPERSEDES]->(old)
SET x.job = 'consolidate'
RETURN count(old) AS retired
