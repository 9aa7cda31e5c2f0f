// Generated from scripts/cypher-templates/operators/nearest_turns_among.cypher by scripts/expand-cypher: edit the
// template (or its fragments), then run the script.
// Anchor, vector half, for a second vector of the same search (the feedback pass, a vector
// near the first): the $k of the nodes $ids nearest to $vector, where $ids is the pool an
// HNSW ask for the first vector returned (nearest_turns_indexed's pool: the group's nodes
// among the store's nearest to it, as of $as_of). One lookup by id and $ids' similarities
// instead of a second index ask (~30 ms at 100k records); the same rows as that ask
// wherever the second vector's nearest are among the first's pool.
MATCH (n:Turn)
WHERE n.id IN $ids AND n.group_id = $group
WITH n, vector.similarity.cosine(n.embedding, $vector) AS sim
ORDER BY sim DESC, n.id
LIMIT $k
RETURN n {.id, type: 'Turn', .name, content: n.full_text, .search_text, .speaker, .subject,
          .source, .target,
          status: CASE WHEN $as_of IS NULL OR n.valid_to IS NULL THEN n.status
                       WHEN n.valid_to <= $as_of THEN 'SUPERSEDED'
                       ELSE coalesce(n.first_status, n.status) END,
          .turn_id, .source_id, .conversation_id, .idx,
          time_start_s: n.time_start.epochSeconds, time_end_s: n.time_end.epochSeconds,
          .time_text, at_s: n.at.epochSeconds, at_off: n.at.offsetSeconds,
          consolidated: coalesce(n.consolidated, false),
          .quote, .confidence,
          // the turn before it in its conversation (NEXT): its neighbour by order, not idx - 1
          prev_idx: [(p:Turn)-[:NEXT]->(n) | p.idx][0]} AS node,
       sim
