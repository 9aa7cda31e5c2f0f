// Create or extend consolidated Facts: (:Memory:Fact {consolidated: true}) with
// (Person)-[:HAS_FACT]->(Fact)-[:ABOUT]->(Concept), (Fact)-[:SUPPORTED_BY]->(Event) for each
// source event and (Fact)-[:EVIDENCED_BY]->(Turn) for each turn that evidences those events.
// Rows: {id, person_id, concept_id, event_ids, props}. Only nodes of $group_id are touched;
// every write is a MERGE, so a repeated row changes nothing but the properties it sets.
// Every write that adds or replaces vectors bumps the group's vector sequence (one
// :CogmemMeta node per group, locked until commit, so writes of a group number in commit
// order) and stamps its nodes with it: searches refresh their in-process vectors by it.
MERGE (vs:CogmemMeta {key: 'vectors:' + $group_id})
SET vs.seq = coalesce(vs.seq, 0) + 1
WITH vs.seq AS vseq
UNWIND $facts AS r
MATCH (p:Memory:Person {id: r.person_id, group_id: $group_id})
MATCH (c:Memory:Concept {id: r.concept_id, group_id: $group_id})
MERGE (f:Memory {id: r.id})
ON CREATE SET f.created_at = datetime()
SET f:Fact, f += r.props, f.group_id = $group_id, f.consolidated = true, f.vseq = vseq,
    p.vseq = vseq, c.vseq = vseq,  // the other ends of its relationships too
    f.said_key = CASE WHEN r.props.at IS NULL THEN null
                 ELSE 'd' + replace(toString(date(datetime(
                   {datetime: r.props.at, timezone: 'UTC'}))), '-', '') END
MERGE (p)-[:HAS_FACT]->(f)
MERGE (f)-[:ABOUT]->(c)
WITH f, r, vseq
CALL (f, r) {
  WITH f, r WHERE r.props.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(f, 'embedding', r.props.embedding)  // stored as float32
}
CALL (f, r, vseq) {
  UNWIND r.event_ids AS eid
  MATCH (e:Memory:Event {id: eid, group_id: $group_id})
  SET e.vseq = vseq
  MERGE (f)-[:SUPPORTED_BY]->(e)
  RETURN count(e) AS supported
}
CALL (f, r) {
  UNWIND r.event_ids AS eid
  MATCH (:Memory:Event {id: eid, group_id: $group_id})-[:EVIDENCED_BY]->(t:Turn {group_id: $group_id})
  WITH DISTINCT t
  MERGE (f)-[:EVIDENCED_BY]->(t)
  RETURN count(t) AS evidenced
}
RETURN count(f) AS facts, sum(supported) AS supported, sum(evidenced) AS evidenced
