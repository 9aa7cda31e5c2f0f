// Traverse one hop from dense nodes (thousands of relationships): traverse_hop's rows, with
// the neighbours found among the $fetch records of the store nearest to $vector (the
// memory_embedding HNSW index, the group's kept) instead of by scoring every neighbour.
// For each of $steps ({ids, rel_types, types, start, end}) and each of its `ids` nodes, at
// most $per_node of those near records linked to it over the step's relationship types
// (either direction), of its node types and time window, closest first (Neo4j's cosine
// similarity, scored exactly), then the most recent, then by id. The caller sizes $fetch
// by the node's share of the store and asks traverse_hop for a node given fewer than
// $per_node. Approximate: a neighbour outside the $fetch nearest is missed (the benchmark
// measures how often the rows differ from traverse_hop's).
// $as_of (null: now): only what was said by then, each record with the status it had
// then (see operators/README.md).
CALL db.index.vector.queryNodes('memory_embedding', $fetch, $vector) YIELD node AS near
WITH near
WHERE near.group_id = $group AND ($as_of IS NULL OR coalesce(near.at, near.first_at) <= $as_of)
WITH collect(near) AS nearest
UNWIND range(0, size($steps) - 1) AS si
WITH nearest, si, $steps[si] AS step
MATCH (a:Memory)
WHERE a.id IN step.ids AND a.group_id = $group
CALL (a, step, nearest) {
  UNWIND nearest AS b
  MATCH (a)-[r]-(b)
  WHERE type(r) IN step.rel_types AND ($as_of IS NULL OR r.at IS NULL OR r.at <= $as_of)
    AND (step.types IS NULL OR b.type IN step.types)
    AND (step.start IS NULL OR
         (coalesce(b.time_end, b.at) > step.start AND coalesce(b.time_start, b.at) < step.end))
  WITH b, r, vector.similarity.cosine(b.embedding, $vector) AS sim
  RETURN b, r, sim
  ORDER BY sim DESC, coalesce(b.time_start, b.at) DESC, b.id
  LIMIT $per_node
}
RETURN si AS step, a.id AS from_id, type(r) AS rel, startNode(r) = a AS outgoing,
       b.id AS id, b.type AS type, b.name AS name, b.content AS content, b.quote AS quote,
       b.speaker AS speaker, b.subject AS subject, b.source AS source, b.target AS target,
       {{claim_status_as_of b}} AS status,
       b.turn_id AS turn_id, b.time_start.epochSeconds AS time_start_s,
       b.time_end.epochSeconds AS time_end_s, b.time_text AS time_text,
       b.at.epochSeconds AS at_s, b.at.offsetSeconds AS at_off, sim AS vector
ORDER BY step, from_id, vector DESC, id, rel
