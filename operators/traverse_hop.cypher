// Traverse one hop: the neighbours of the $ids nodes over relationship types $rel_types
// (either direction), inside the group, optionally restricted to node types $types and to
// the time window [$start, $end) (a record's referenced time, else the time it was said).
// At most $per_node neighbours per node: those closest to the question (by $sims, the
// caller's similarity of each of the group's records to it, from its in-process vectors;
// a record it leaves out counts as 0), then the most recent. One branch per relationship type of the fixed
// vocabulary: a branch whose type is not asked for is skipped before it expands, so a
// person with a million events costs nothing for a CLAIMS traversal.
MATCH (a:Memory)
WHERE a.id IN $ids AND a.group_id = $group
CALL (a) {
  CALL (a) {
  MATCH (a)-[r:PARTICIPATED_IN]-(b:Memory) WHERE 'PARTICIPATED_IN' IN $rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:INVOLVES]-(b:Memory) WHERE 'INVOLVES' IN $rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:HAS_FACT]-(b:Memory) WHERE 'HAS_FACT' IN $rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:ABOUT]-(b:Memory) WHERE 'ABOUT' IN $rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:LIKES]-(b:Memory) WHERE 'LIKES' IN $rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:DISLIKES]-(b:Memory) WHERE 'DISLIKES' IN $rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:USES]-(b:Memory) WHERE 'USES' IN $rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:KNOWS]-(b:Memory) WHERE 'KNOWS' IN $rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:CLAIMS]-(b:Memory) WHERE 'CLAIMS' IN $rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:TARGETS]-(b:Memory) WHERE 'TARGETS' IN $rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:SUPERSEDES]-(b:Memory) WHERE 'SUPERSEDES' IN $rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:CONFLICTS_WITH]-(b:Memory) WHERE 'CONFLICTS_WITH' IN $rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:SUPPORTED_BY]-(b:Memory) WHERE 'SUPPORTED_BY' IN $rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:REFERENCES]-(b:Memory) WHERE 'REFERENCES' IN $rel_types RETURN r, b
  UNION ALL
  MATCH (a)-[r:CAUSES]-(b:Memory) WHERE 'CAUSES' IN $rel_types RETURN r, b
  }
  WITH r, b
  WHERE b.group_id = $group
    AND ($types IS NULL OR b.type IN $types)
    AND ($start IS NULL OR
         (coalesce(b.time_end, b.at) > $start AND coalesce(b.time_start, b.at) < $end))
  WITH b, r, coalesce($sims[b.id], 0.0) AS sim
  RETURN b, r, sim
  ORDER BY sim DESC, coalesce(b.time_start, b.at) DESC
  LIMIT $per_node
}
RETURN a.id AS from_id, type(r) AS rel, startNode(r) = a AS outgoing,
       b.id AS id, b.type AS type, b.name AS name, b.content AS content, b.quote AS quote,
       b.speaker AS speaker, b.subject AS subject, b.source AS source, b.target AS target,
       b.status AS status, b.turn_id AS turn_id, b.time_start.epochSeconds AS time_start_s,
       b.time_end.epochSeconds AS time_end_s, b.time_text AS time_text,
       b.at.epochSeconds AS at_s, sim AS vector
