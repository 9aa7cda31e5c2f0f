// Write memory records: (:Memory:<Type>) with EVIDENCED_BY edges to the turns that quote them,
// then the relationships between records ($edges, once every record is written; one round
// trip for both). The type label and the relationship type come from fixed lists below; an
// unknown label writes no label, an unknown relationship type nothing; e.props become
// relationship properties.
// Aliases accumulate (set union), so entity records can be merged batch after batch.
// A record's status is set only when it is created: a claim's reconciliation owns it
// afterwards; an Event's or a Todo's is its plan status (PLANNED, DONE, CANCELLED) as its
// turn tells it, and a later record that does or calls off a plan SUPERSEDES it (the
// plan's status becomes SUPERSEDED, its node stamped so that searches read it again).
// Time (issue 32): every relationship keeps when it was first said (`at`, from the turn
// of the record that made it); an entity, which has no `at`, keeps `first_at` (its
// earliest evidence turn); a record keeps `first_status`, its status when said, and a
// superseded one `valid_to`, when the record that replaced it was said: `status` is the
// status now, and the status at an earlier time is derived from those two (operators/).
// An entity row may come without a vector (the writer knows the node has one already);
// `unembedded` names the records that still have none, for the writer to embed.
// Every write that adds or replaces vectors bumps the group's vector sequence (one
// :CogmemMeta node per group, locked until commit, so writes of a group number in commit
// order) and stamps its nodes with it: searches refresh their in-process vectors by it.
MERGE (vs:CogmemMeta {key: 'vectors:' + $group})
SET vs.seq = coalesce(vs.seq, 0) + 1
WITH vs.seq AS vseq
UNWIND $records AS r
MERGE (m:Memory {id: r.id})
ON CREATE SET m.created_at = datetime()
SET m += r.props,
    m.vseq = vseq,
    m.status = coalesce(m.status, r.status),
    m.first_status = coalesce(m.first_status, m.status, r.status),
    m.aliases = reduce(acc = coalesce(m.aliases, []), a IN r.aliases |
                       CASE WHEN a IN acc THEN acc ELSE acc + a END)
FOREACH (_ IN CASE WHEN r.label = 'Person' THEN [1] ELSE [] END | SET m:Person)
FOREACH (_ IN CASE WHEN r.label = 'Concept' THEN [1] ELSE [] END | SET m:Concept)
FOREACH (_ IN CASE WHEN r.label = 'Event' THEN [1] ELSE [] END | SET m:Event)
FOREACH (_ IN CASE WHEN r.label = 'Fact' THEN [1] ELSE [] END | SET m:Fact)
FOREACH (_ IN CASE WHEN r.label = 'Claim' THEN [1] ELSE [] END | SET m:Claim)
FOREACH (_ IN CASE WHEN r.label = 'Decision' THEN [1] ELSE [] END | SET m:Decision)
FOREACH (_ IN CASE WHEN r.label = 'Todo' THEN [1] ELSE [] END | SET m:Todo)
FOREACH (_ IN CASE WHEN r.label = 'Reminder' THEN [1] ELSE [] END | SET m:Reminder)
FOREACH (_ IN CASE WHEN r.label = 'Insight' THEN [1] ELSE [] END | SET m:Insight)
WITH m, r, vseq
CALL (m, r) {
  WITH m, r WHERE r.props.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(m, 'embedding', r.props.embedding)  // stored as float32
}
CALL (m, r) {
  UNWIND r.turn_ids AS tid
  MATCH (t:Turn {id: tid})
  MERGE (m)-[:EVIDENCED_BY]->(t)
  RETURN count(t) AS grounded, min(t.at) AS first
}
// an entity (no time of its own) was first said in its earliest evidence turn
SET m.first_at = CASE WHEN m.at IS NOT NULL OR first IS NULL THEN m.first_at
                      WHEN m.first_at IS NULL OR first < m.first_at THEN first
                      ELSE m.first_at END
// the UTC day it was said (an entity: first said) as one Lucene term (turn_text likewise)
SET m.said_key = CASE WHEN coalesce(m.at, m.first_at) IS NULL THEN null
                 ELSE 'd' + replace(toString(date(datetime(
                   {datetime: coalesce(m.at, m.first_at), timezone: 'UTC'}))), '-', '') END
WITH vseq, count(m) AS records, sum(grounded) AS evidenced,
     collect(CASE WHEN m.embedding IS NULL THEN m.id END) AS unembedded
CALL (vseq) {
  UNWIND $edges AS e
  MATCH (a:Memory {id: e.src})
  MATCH (b:Memory {id: e.dst})
  FOREACH (_ IN CASE WHEN e.type = 'PARTICIPATED_IN' THEN [1] ELSE [] END |
    MERGE (a)-[x:PARTICIPATED_IN]->(b) SET x += e.props, x.at = coalesce(x.at, e.at))
  FOREACH (_ IN CASE WHEN e.type = 'INVOLVES' THEN [1] ELSE [] END |
    MERGE (a)-[x:INVOLVES]->(b) SET x += e.props, x.at = coalesce(x.at, e.at))
  FOREACH (_ IN CASE WHEN e.type = 'HAS_FACT' THEN [1] ELSE [] END |
    MERGE (a)-[x:HAS_FACT]->(b) SET x += e.props, x.at = coalesce(x.at, e.at))
  FOREACH (_ IN CASE WHEN e.type = 'ABOUT' THEN [1] ELSE [] END |
    MERGE (a)-[x:ABOUT]->(b) SET x += e.props, x.at = coalesce(x.at, e.at))
  FOREACH (_ IN CASE WHEN e.type = 'LIKES' THEN [1] ELSE [] END |
    MERGE (a)-[x:LIKES]->(b) SET x += e.props, x.at = coalesce(x.at, e.at))
  FOREACH (_ IN CASE WHEN e.type = 'DISLIKES' THEN [1] ELSE [] END |
    MERGE (a)-[x:DISLIKES]->(b) SET x += e.props, x.at = coalesce(x.at, e.at))
  FOREACH (_ IN CASE WHEN e.type = 'USES' THEN [1] ELSE [] END |
    MERGE (a)-[x:USES]->(b) SET x += e.props, x.at = coalesce(x.at, e.at))
  FOREACH (_ IN CASE WHEN e.type = 'KNOWS' THEN [1] ELSE [] END |
    MERGE (a)-[x:KNOWS]->(b) SET x += e.props, x.at = coalesce(x.at, e.at))
  FOREACH (_ IN CASE WHEN e.type = 'CLAIMS' THEN [1] ELSE [] END |
    MERGE (a)-[x:CLAIMS]->(b) SET x += e.props, x.at = coalesce(x.at, e.at))
  FOREACH (_ IN CASE WHEN e.type = 'TARGETS' THEN [1] ELSE [] END |
    MERGE (a)-[x:TARGETS]->(b) SET x += e.props, x.at = coalesce(x.at, e.at))
  FOREACH (_ IN CASE WHEN e.type = 'SUPERSEDES' THEN [1] ELSE [] END |
    MERGE (a)-[x:SUPERSEDES]->(b) SET x += e.props, x.at = coalesce(x.at, e.at),
      b.status = 'SUPERSEDED', b.valid_to = coalesce(b.valid_to, a.at), b.vseq = vseq)
  RETURN count(*) AS edges
}
RETURN records, evidenced, unembedded, edges
