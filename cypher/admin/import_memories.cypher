// Import: create or replace memory records from $nodes rows {id, labels, props}. The type
// label comes from a fixed list below (any other label is never written). Only nodes of
// group $group are written; the returned count tells how many were.
// Every write that adds or replaces vectors bumps the group's vector sequence (one
// :CogmemMeta node per group, locked until commit, so writes of a group number in commit
// order) and stamps its nodes with it: searches refresh their in-process vectors by it.
MERGE (vs:CogmemMeta {key: 'vectors:' + $group})
SET vs.seq = coalesce(vs.seq, 0) + 1
WITH vs.seq AS vseq
UNWIND $nodes AS row
MERGE (n:Memory {id: row.id})
ON CREATE SET n.group_id = $group
WITH n, row, vseq
WHERE n.group_id = $group
SET n = row.props, n.vseq = vseq
// its Lucene day key from its own time (an export of an older cogmem has none)
SET n.said_key = CASE WHEN coalesce(n.at, n.first_at) IS NULL THEN null
                 ELSE 'd' + replace(toString(date(datetime(
                   {datetime: coalesce(n.at, n.first_at), timezone: 'UTC'}))), '-', '') END
FOREACH (_ IN CASE WHEN 'Person' IN row.labels THEN [1] ELSE [] END | SET n:Person)
FOREACH (_ IN CASE WHEN 'Concept' IN row.labels THEN [1] ELSE [] END | SET n:Concept)
FOREACH (_ IN CASE WHEN 'Event' IN row.labels THEN [1] ELSE [] END | SET n:Event)
FOREACH (_ IN CASE WHEN 'Fact' IN row.labels THEN [1] ELSE [] END | SET n:Fact)
FOREACH (_ IN CASE WHEN 'Claim' IN row.labels THEN [1] ELSE [] END | SET n:Claim)
FOREACH (_ IN CASE WHEN 'Decision' IN row.labels THEN [1] ELSE [] END | SET n:Decision)
FOREACH (_ IN CASE WHEN 'Todo' IN row.labels THEN [1] ELSE [] END | SET n:Todo)
FOREACH (_ IN CASE WHEN 'Reminder' IN row.labels THEN [1] ELSE [] END | SET n:Reminder)
FOREACH (_ IN CASE WHEN 'Insight' IN row.labels THEN [1] ELSE [] END | SET n:Insight)
WITH n, row
CALL (n, row) {
  WITH n, row WHERE row.props.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(n, 'embedding', row.props.embedding)  // stored as float32
}
RETURN count(n) AS nodes
