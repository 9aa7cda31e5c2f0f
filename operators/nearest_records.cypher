// Generated from scripts/cypher-templates/operators/nearest_records.cypher by scripts/expand-cypher: edit the
// template (or its fragments), then run the script.
// Anchor, vector half, exact: the $k memory records of group $group (of types $types, all
// when null) nearest to $vector (Neo4j's cosine similarity, (1 + cos) / 2), found through
// the group_id index and scored one by one: exact, never crowded out by other groups.
// Equal scores by id.
// $as_of (null: now): only what was said by then, each record with the status it had
// then (see operators/README.md).
// $pool_size (0: none): the ids of the nearest $pool_size come back as `pool` (on the
// first row), which a second vector of the same search scores (nearest_*_among) in a
// group large enough that a second scan costs more than looking those few up.
MATCH (n:Memory)
WHERE n.group_id = $group
  AND ($as_of IS NULL OR coalesce(n.at, n.first_at) <= $as_of) AND n.embedding IS NOT NULL
  AND ($types IS NULL OR n.type IN $types)
WITH n, vector.similarity.cosine(n.embedding, $vector) AS sim
ORDER BY sim DESC, n.id
LIMIT CASE WHEN $pool_size > $k THEN $pool_size ELSE $k END
WITH collect(n) AS found, collect(sim) AS sims
UNWIND range(0, CASE WHEN size(found) < $k THEN size(found) ELSE $k END - 1) AS i
WITH found[i] AS n, sims[i] AS sim,
     CASE WHEN i = 0 AND $pool_size > 0 THEN [m IN found | m.id] END AS pool
RETURN n {.id, .type, .name, .content, .speaker, .subject, .source, .target,
          status: CASE WHEN $as_of IS NULL OR n.valid_to IS NULL THEN n.status
                       WHEN n.valid_to <= $as_of THEN 'SUPERSEDED'
                       ELSE coalesce(n.first_status, n.status) END,
          .turn_id, .source_id, .conversation_id, .idx,
          time_start_s: n.time_start.epochSeconds, time_end_s: n.time_end.epochSeconds,
          .time_text, at_s: n.at.epochSeconds, at_off: n.at.offsetSeconds,
          consolidated: coalesce(n.consolidated, false),
          .quote, .confidence} AS node,
       sim,
       pool
