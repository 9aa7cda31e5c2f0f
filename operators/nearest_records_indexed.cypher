// Generated from scripts/cypher-templates/operators/nearest_records_indexed.cypher by scripts/expand-cypher: edit the
// template (or its fragments), then run the script.
// Anchor, vector half, through the HNSW index (memory_embedding) for a large group: the
// $fetch nearest records of the whole store, the group's (of types $types, all when null)
// kept, the best $k of them. Approximate; the caller sizes $fetch by the group's share of
// the store and falls back to nearest_records (exact) when fewer than $k come back.
// $as_of (null: now): only what was said by then, each record with the status it had
// then (see operators/README.md).
CALL db.index.vector.queryNodes('memory_embedding', $fetch, $vector) YIELD node AS n
WITH n
WHERE n.group_id = $group
  AND ($as_of IS NULL OR coalesce(n.at, n.first_at) <= $as_of)
  AND ($types IS NULL OR n.type IN $types)
// the index's scores are those of its quantised vectors: score the group's exactly, as
// nearest_records does, so both give the same order and similarities
WITH n, vector.similarity.cosine(n.embedding, $vector) AS sim
ORDER BY sim DESC, n.id
// the best $k, and on the first row the ids of every one of the group's nodes the index
// returned, best first: the pool a second vector of the same search (the feedback pass)
// is scored among (nearest_*_among) instead of asking the index again
WITH collect(n) AS found, collect(sim) AS sims
UNWIND range(0, CASE WHEN size(found) < $k THEN size(found) ELSE $k END - 1) AS i
WITH found[i] AS n, sims[i] AS sim, CASE WHEN i = 0 THEN [m IN found | m.id] END AS pool
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
