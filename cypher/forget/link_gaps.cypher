// Forgetting (issue 50): chain the turns on either side of a forgotten run, (a)-[:NEXT]->(b)
// for each of $pairs ({prev, next}), as an ingest without the forgotten turns chains them.
UNWIND $pairs AS p
MATCH (a:Turn {id: p.prev})
MATCH (b:Turn {id: p.next})
WHERE a.group_id = $group AND b.group_id = $group
MERGE (a)-[:NEXT]->(b)
SET a.vseq = $vseq, b.vseq = $vseq
RETURN count(*) AS linked
