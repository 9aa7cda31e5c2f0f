// A stored turn and the types of the records it evidences (what its write stored), by
// the turn's node id: a turn sent again with its client id is answered from this.
MATCH (t:Turn {id: $turn_id})
OPTIONAL MATCH (m:Memory)-[:EVIDENCED_BY]->(t)
RETURN t.id AS id, collect(m.type) AS types
