// Generated from scripts/cypher-templates/operators/fulltext_turns.cypher by scripts/expand-cypher: edit the
// template (or its fragments), then run the script.
// Anchor, lexical half: the best $k turns of group $group (of the index's best $fetch) for the
// Lucene query $query
// (built by cogmem/retrieval/graph_source.py: the group's key as a required clause, so
// Lucene itself keeps to the group, and the question's words against search_text), BM25
// as the turn_text index scores it, with each turn's similarity to $vector (null: none).
// $as_of (null: now): only what was said by then, each record with the status it had
// then (see operators/README.md).
CALL db.index.fulltext.queryNodes('turn_text', $query, {limit: $fetch}) YIELD node AS n, score
WITH n, score
WHERE n.group_id = $group AND ($as_of IS NULL OR coalesce(n.at, n.first_at) <= $as_of)
WITH n, score
ORDER BY score DESC, n.id
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
       score,
       CASE WHEN $vector IS NULL OR n.embedding IS NULL THEN 0.0
            ELSE vector.similarity.cosine(n.embedding, $vector) END AS sim
ORDER BY score DESC, n.id
