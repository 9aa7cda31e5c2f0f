// Import: create or replace Turn nodes from $nodes rows {id, props}. Only nodes of group
// $group are written (a node of another group with the same id is left alone, and the
// returned count tells). props hold every property, id and group_id included.
// Every write that adds or replaces vectors bumps the group's vector sequence (one
// :CogmemMeta node per group, locked until commit, so writes of a group number in commit
// order) and stamps its nodes with it: searches refresh their in-process vectors by it.
MERGE (vs:CogmemMeta {key: 'vectors:' + $group})
SET vs.seq = coalesce(vs.seq, 0) + 1
WITH vs.seq AS vseq
UNWIND $nodes AS row
MERGE (n:Turn {id: row.id})
ON CREATE SET n.group_id = $group
WITH n, row, vseq
WHERE n.group_id = $group
SET n = row.props, n.vseq = vseq
// its Lucene day key from its own time (an export of an older cogmem has none)
SET n.said_key = CASE WHEN coalesce(n.at, n.first_at) IS NULL THEN null
                 ELSE 'd' + replace(toString(date(datetime(
                   {datetime: coalesce(n.at, n.first_at), timezone: 'UTC'}))), '-', '') END
WITH n, row
CALL (n, row) {
  WITH n, row WHERE row.props.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(n, 'embedding', row.props.embedding)  // stored as float32
}
RETURN count(n) AS nodes
