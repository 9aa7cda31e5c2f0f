// Forgetting (issue 50): the relationships between entities that a forgotten turn said, after
// its turns and records are deleted. A LIKES / DISLIKES / USES edge names the record it came
// from (via): it goes with that record ($gone; found from the record's concepts, $concepts).
// A KNOWS edge (a speaker named a person with their relation: "my cousin Aylin") stays only
// while a turn that stays, said by that speaker and evidencing that person, still names the
// relation (the last word of its label); it was first said then ($persons: the persons that
// lost evidence).
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
  OPTIONAL MATCH (b)-[:EVIDENCED_BY]->(t:Turn)
  WHERE t.speaker = a.name
    AND (x.relation IS NULL
         OR toLower(t.full_text) CONTAINS toLower(last(split(x.relation, ' '))))
  WITH x, min(t.at) AS first
  CALL (x, first) {
    WITH x, first WHERE first IS NULL
    DELETE x
  }
  CALL (x, first) {
    WITH x, first WHERE first IS NOT NULL
    SET x.at = first
  }
  RETURN count(*) AS knows
}
RETURN via, knows
