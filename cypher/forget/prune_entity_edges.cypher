// Forgetting (issue 50): the relationships between entities that a forgotten turn said, after
// its turns and records are deleted. A LIKES / DISLIKES / USES edge names the record it came
// from (via): it goes with that record ($gone; found from the record's concepts, $concepts).
// A KNOWS edge (a speaker knows a person they named) stays only while a turn that stays,
// said by that speaker, still names that person ($persons: the persons that lost evidence).
CALL () {
  UNWIND $concepts AS cid
  MATCH (:Memory)-[x:LIKES|DISLIKES|USES]->(c:Memory {id: cid})
  WHERE c.group_id = $group AND x.via IN $gone
  DELETE x
  RETURN count(*) AS via
}
CALL () {
  UNWIND $persons AS pid
  MATCH (a:Memory:Person)-[x:KNOWS]->(b:Memory:Person {id: pid})
  WHERE b.group_id = $group
    AND NOT EXISTS { MATCH (b)-[:EVIDENCED_BY]->(t:Turn) WHERE t.speaker = a.name }
  DELETE x
  RETURN count(*) AS knows
}
RETURN via, knows
