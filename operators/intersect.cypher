// Intersect: what the neighbourhoods of several entities ($ids) share. For each entity,
// its concepts reached directly (LIKES, DISLIKES, USES) or through its records
// (PARTICIPATED_IN / HAS_FACT / CLAIMS, then INVOLVES / ABOUT / TARGETS); the $per_entity
// concepts closest to the question are its candidates ($vector: Neo4j's cosine similarity
// of the concept's embedding, 0 without one). A concept shared by at least $min_shared
// entities is returned with the records that link each entity to it.
// $as_of (null: now): only what was said by then, each record with the status it had
// then (see operators/README.md).
UNWIND $ids AS eid
MATCH (e:Memory {id: eid})
WHERE e.group_id = $group
CALL (e) {
  MATCH (e)-[r1]->(x:Memory)
  WHERE type(r1) IN $rel_types AND x.group_id = $group
    AND ($as_of IS NULL OR (coalesce(x.at, x.first_at) <= $as_of
                            AND (r1.at IS NULL OR r1.at <= $as_of)))
  OPTIONAL MATCH (x)-[r2:INVOLVES|ABOUT|TARGETS]->(c2:Concept)
  WHERE $as_of IS NULL OR r2.at IS NULL OR r2.at <= $as_of
  WITH x, CASE WHEN x:Concept THEN x ELSE c2 END AS c
  WHERE c IS NOT NULL
  WITH c, collect(DISTINCT CASE WHEN x:Concept THEN null ELSE x.id END) AS via
  // a concept's own time once per concept, not once per record that reaches it
  WHERE $as_of IS NULL OR coalesce(c.at, c.first_at) <= $as_of
  RETURN c, via, CASE WHEN $vector IS NULL OR c.embedding IS NULL THEN 0.0
                   ELSE vector.similarity.cosine(c.embedding, $vector) END AS sim
  ORDER BY sim DESC, c.id  // ties by id: the same on any server
  LIMIT $per_entity
}
WITH c, collect({entity: e.id, via: via}) AS links, max(sim) AS sim
WHERE size(links) >= $min_shared
RETURN c.id AS id, c.name AS name, sim, links
ORDER BY size(links) DESC, sim DESC, id
