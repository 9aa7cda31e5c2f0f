// Intersect: what the neighbourhoods of several entities ($ids) share. For each entity,
// its concepts reached directly (LIKES, DISLIKES, USES) or through its records
// (PARTICIPATED_IN / HAS_FACT / CLAIMS, then INVOLVES / ABOUT / TARGETS); the $per_entity
// concepts closest to the question are its candidates ($vector: Neo4j's cosine similarity
// of the concept's embedding, 0 without one). A concept shared by at least $min_shared
// entities is returned with the records that link each entity to it.
// $as_of (null: now): only what was said by then, each record with the status it had
// then (see operators/README.md). The ways to each concept are gathered first, without
// reading a time; the concepts are then taken closest first, and only their ways' times
// are read, until $per_entity concepts have a way said by then (at 100k records, reading
// every way's times first cost as much again as the whole statement now). A record's id is
// read for the concepts kept only.
UNWIND $ids AS eid
MATCH (e:Memory {id: eid})
WHERE e.group_id = $group
CALL (e) {
  MATCH (e)-[r1]->(x:Memory)
  WHERE type(r1) IN $rel_types AND x.group_id = $group
  OPTIONAL MATCH (x)-[r2:INVOLVES|ABOUT|TARGETS]->(c2:Concept)
  WITH x, r1, r2, x:Concept AS direct, c2
  WITH x, r1, r2, direct, CASE WHEN direct THEN x ELSE c2 END AS c
  WHERE c IS NOT NULL
  WITH c, collect({x: x, r1: r1, r2: r2, direct: direct}) AS ways
  WITH c, ways, CASE WHEN $vector IS NULL OR c.embedding IS NULL THEN 0.0
                 ELSE vector.similarity.cosine(c.embedding, $vector) END AS sim
  ORDER BY sim DESC, c.id  // ties by id: the same on any server
  WITH c, sim,
       CASE WHEN $as_of IS NULL THEN ways
            WHEN coalesce(c.at, c.first_at) > $as_of THEN []
            ELSE [w IN ways WHERE coalesce(w.x.at, w.x.first_at) <= $as_of
                    AND (w.r1.at IS NULL OR w.r1.at <= $as_of)
                    AND (w.direct OR w.r2.at IS NULL OR w.r2.at <= $as_of)] END AS kept
  WHERE size(kept) > 0
  WITH c, sim, kept
  LIMIT $per_entity
  CALL (kept) {
    UNWIND kept AS w
    WITH w WHERE NOT w.direct
    RETURN collect(DISTINCT w.x.id) AS via
  }
  RETURN c, via, sim
}
WITH c, collect({entity: e.id, via: via}) AS links, max(sim) AS sim
WHERE size(links) >= $min_shared
RETURN c.id AS id, c.name AS name, sim, links
ORDER BY size(links) DESC, sim DESC, id
