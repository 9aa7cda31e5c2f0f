// Traverse one hop: the neighbours of the $ids nodes over relationship types $rel_types
// (either direction), inside the group, optionally restricted to node types $types and to
// the time window [$start, $end) (a record's referenced time, else the time it was said).
// At most $per_node neighbours per node: those closest to the question vector $vector
// (when given), then the most recent.
MATCH (a:Memory)
WHERE a.id IN $ids AND a.group_id = $group
CALL (a) {
  MATCH (a)-[r]-(b:Memory)
  WHERE type(r) IN $rel_types
    AND b.group_id = $group
    AND ($types IS NULL OR b.type IN $types)
    AND ($start IS NULL OR
         (coalesce(b.time_end, b.at) > $start AND coalesce(b.time_start, b.at) < $end))
  WITH b, r, CASE WHEN $vector IS NULL OR b.embedding IS NULL THEN 0.0
                 ELSE vector.similarity.cosine(b.embedding, $vector) END AS sim
  RETURN b, r, sim
  ORDER BY sim DESC, coalesce(b.time_start, b.at) DESC
  LIMIT $per_node
}
RETURN a.id AS from_id, type(r) AS rel, startNode(r) = a AS outgoing,
       b.id AS id, b.type AS type, b.name AS name, b.content AS content, b.quote AS quote,
       b.speaker AS speaker, b.subject AS subject, b.source AS source, b.target AS target,
       b.status AS status, b.turn_id AS turn_id, b.time_start.epochSeconds AS time_start_s,
       b.time_end.epochSeconds AS time_end_s, b.time_text AS time_text, b.at.epochSeconds AS at_s,
       sim AS vector
