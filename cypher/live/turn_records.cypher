// A stored turn, its speaker and text, and the types of the records it evidences (what
// its write stored), by the turn's node id: a turn sent again with its client id is
// answered from this, and one sent with another text under that id is refused.
MATCH (t:Turn {id: $turn_id})
OPTIONAL MATCH (m:Memory)-[:EVIDENCED_BY]->(t)
RETURN t.id AS id, t.speaker AS speaker, t.text AS text, collect(m.type) AS types
