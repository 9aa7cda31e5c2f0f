// Generated from scripts/cypher-templates/operators/nearest_turns_as_of.cypher by scripts/expand-cypher: edit the
// template (or its fragments), then run the script.
// Anchor, vector half, exact, as of a time: the $k turns of group $group said by $as_of
// nearest to $vector, found through the (group_id, at) index (only those said by then are
// read) and scored one by one, as nearest_turns scores the whole group. For a search as of
// a date whose group held few enough turns then (cogmem/retrieval/graph_source.py).
// $pool_size (0: none): the ids of the nearest $pool_size come back as `pool` (on the
// first row), which a second vector of the same search scores (nearest_*_among) in a group
// too large to scan now, as an HNSW ask's pool is.
MATCH (n:Turn)
WHERE n.group_id = $group AND n.at <= $as_of AND n.embedding IS NOT NULL
WITH n, vector.similarity.cosine(n.embedding, $vector) AS sim
ORDER BY sim DESC, n.id
LIMIT CASE WHEN $pool_size > $k THEN $pool_size ELSE $k END
WITH collect(n) AS found, collect(sim) AS sims
UNWIND range(0, CASE WHEN size(found) < $k THEN size(found) ELSE $k END - 1) AS i
WITH found[i] AS n, sims[i] AS sim,
     CASE WHEN i = 0 AND $pool_size > 0 THEN [m IN found | m.id] END AS pool
RETURN n {.id, type: 'Turn', .name, content: n.full_text, .search_text, .speaker, .subject,
          .source, .target, .status, .turn_id, .source_id, .conversation_id, .idx,
          time_start_s: n.time_start.epochSeconds, time_end_s: n.time_end.epochSeconds,
          .time_text, at_s: n.at.epochSeconds, at_off: n.at.offsetSeconds,
          consolidated: coalesce(n.consolidated, false),
          .quote, .confidence,
          // the turn before it in its conversation (NEXT): its neighbour by order, not idx - 1
          prev_idx: [(p:Turn)-[:NEXT]->(n) | p.idx][0]} AS node,
       sim,
       pool
