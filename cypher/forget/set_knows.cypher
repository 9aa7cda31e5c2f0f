// Forgetting (issue 50): the KNOWS edges that a turn that stays still says get that turn's
// time (the first that says it) and relation label ($keep: {src, dst, at, relation}); those
// none says any more ($drop: {src, dst}) are deleted.
CALL () {
  UNWIND $drop AS e
  MATCH (a:Memory:Person {id: e.src})-[x:KNOWS]->(b:Memory:Person {id: e.dst})
  WHERE a.group_id = $group AND b.group_id = $group
  DELETE x
  RETURN count(*) AS dropped
}
CALL () {
  UNWIND $keep AS e
  MATCH (a:Memory:Person {id: e.src})-[x:KNOWS]->(b:Memory:Person {id: e.dst})
  WHERE a.group_id = $group AND b.group_id = $group
  SET x.at = e.at, x.relation = e.relation
  RETURN count(*) AS kept
}
RETURN dropped, kept
