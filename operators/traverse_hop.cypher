// Generated from scripts/cypher-templates/operators/traverse_hop.cypher by scripts/expand-cypher: edit the
// template (or its fragments), then run the script.
// Traverse one hop, for several independent steps in one round trip: for each of $steps
// ({ids, rel_types, types, start, end}), the neighbours of its `ids` nodes over its
// relationship types (either direction), inside the group, optionally restricted to node
// types `types` and to the time window [start, end) (a record's referenced time, else the
// time it was said). At most $per_node neighbours per node and step: those closest to the
// question ($vector: Neo4j's cosine similarity of the neighbour's embedding; 0 without
// one), then the most recent. One branch
// per relationship type of the fixed vocabulary: a branch whose type is not asked for is
// skipped before it expands, so a person with a million events costs nothing for a CLAIMS
// traversal.
// $as_of (null: now): only what was said by then, each record with the status it had
// then (see operators/README.md).
UNWIND range(0, size($steps) - 1) AS si
WITH si, $steps[si] AS step
MATCH (a:Memory)
WHERE a.id IN step.ids AND a.group_id = $group
CALL (a, step) {
  CALL (a, step) {
  MATCH (a)-[r:PARTICIPATED_IN]-(b:Memory) WHERE 'PARTICIPATED_IN' IN step.rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:INVOLVES]-(b:Memory) WHERE 'INVOLVES' IN step.rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:HAS_FACT]-(b:Memory) WHERE 'HAS_FACT' IN step.rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:ABOUT]-(b:Memory) WHERE 'ABOUT' IN step.rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:LIKES]-(b:Memory) WHERE 'LIKES' IN step.rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:DISLIKES]-(b:Memory) WHERE 'DISLIKES' IN step.rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:USES]-(b:Memory) WHERE 'USES' IN step.rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:KNOWS]-(b:Memory) WHERE 'KNOWS' IN step.rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:CLAIMS]-(b:Memory) WHERE 'CLAIMS' IN step.rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:TARGETS]-(b:Memory) WHERE 'TARGETS' IN step.rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:SUPERSEDES]-(b:Memory) WHERE 'SUPERSEDES' IN step.rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:CONFLICTS_WITH]-(b:Memory) WHERE 'CONFLICTS_WITH' IN step.rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:SUPPORTED_BY]-(b:Memory) WHERE 'SUPPORTED_BY' IN step.rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:REFERENCES]-(b:Memory) WHERE 'REFERENCES' IN step.rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:CAUSES]-(b:Memory) WHERE 'CAUSES' IN step.rel_types RETURN r, b
  }
  WITH r, b
  WHERE b.group_id = $group
    AND ($as_of IS NULL OR coalesce(b.at, b.first_at) <= $as_of)
    AND ($as_of IS NULL OR r.at IS NULL OR r.at <= $as_of)
    AND (step.types IS NULL OR b.type IN step.types)
    AND (step.start IS NULL OR
         (coalesce(b.time_end, b.at) > step.start AND coalesce(b.time_start, b.at) < step.end))
  WITH b, r, CASE WHEN $vector IS NULL OR b.embedding IS NULL THEN 0.0
                   ELSE vector.similarity.cosine(b.embedding, $vector) END AS sim
  RETURN b, r, sim
  ORDER BY sim DESC, coalesce(b.time_start, b.at) DESC, b.id  // ties by id: any server
  LIMIT $per_node
}
RETURN si AS step, a.id AS from_id, type(r) AS rel, startNode(r) = a AS outgoing,
       b.id AS id, b.type AS type, b.name AS name, b.content AS content, b.quote AS quote,
       b.speaker AS speaker, b.subject AS subject, b.source AS source, b.target AS target,
       CASE WHEN $as_of IS NULL OR b.valid_to IS NULL THEN b.status
                       WHEN b.valid_to <= $as_of THEN 'SUPERSEDED'
                       ELSE coalesce(b.first_status, b.status) END AS status,
       b.turn_id AS turn_id, b.time_start.epochSeconds AS time_start_s,
       b.time_end.epochSeconds AS time_end_s, b.time_text AS time_text,
       b.at.epochSeconds AS at_s, b.at.offsetSeconds AS at_off, sim AS vector
ORDER BY step, from_id, vector DESC, id, rel
