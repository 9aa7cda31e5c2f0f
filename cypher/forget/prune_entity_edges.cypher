// Forgetting (issue 50): the relationships between entities that a forgotten turn said, after
// its turns and records are deleted. A LIKES / DISLIKES / USES edge names the record it came
// from (via): it goes with that record ($gone; found from the record's concepts, $concepts).
// (KNOWS edges: forget/knows_candidates and forget/set_knows.)
CALL () {
  UNWIND $concepts AS cid
  MATCH (:Memory)-[x:LIKES|DISLIKES|USES]->(c:Memory {id: cid})
  WHERE c.group_id = $group AND x.via IN $gone
  DELETE x
  RETURN count(*) AS via
}
RETURN via