// Generated from scripts/cypher-templates/operators/nearest_records_as_of.cypher by scripts/expand-cypher: edit the
// template (or its fragments), then run the script.
// Anchor, vector half, exact, as of a time: the $k memory records of group $group (of types
// $types, all when null) said by $as_of nearest to $vector, each with the status it had
// then: records through the (group_id, at) index, entities through (group_id, first_at),
// so only what was said by then is read, and scored one by one as nearest_records does.
// $pool_size (0: none): the ids of the nearest $pool_size come back as `pool` (on the
// first row), which a second vector of the same search scores (nearest_*_among) in a group
// too large to scan now, as an HNSW ask's pool is.
CALL () {
  MATCH (n:Memory) WHERE n.group_id = $group AND n.at <= $as_of
  RETURN n
  UNION ALL
  MATCH (n:Memory) WHERE n.group_id = $group AND n.first_at <= $as_of
  RETURN n
}
WITH n
WHERE n.embedding IS NOT NULL AND ($types IS NULL OR n.type IN $types)
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
