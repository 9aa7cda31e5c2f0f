// Generated from scripts/cypher-templates/operators/nodes_by_id.cypher by scripts/expand-cypher: edit the
// template (or its fragments), then run the script.
// Turns and memory records of group $group by id, with the fields search ranks them by and
// their similarity to $vector (0.0 without a vector or without $vector).
// $as_of (null: now): only what was said by then, each record with the status it had
// then (see operators/README.md).
CALL () {
  MATCH (n:Turn)
  WHERE n.id IN $ids AND n.group_id = $group
    AND ($as_of IS NULL OR coalesce(n.at, n.first_at) <= $as_of)
  RETURN n, 'Turn' AS type, n.full_text AS content,
         [(p:Turn)-[:NEXT]->(n) | p.idx][0] AS prev_idx
  UNION ALL
  MATCH (n:Memory)
  WHERE n.id IN $ids AND n.group_id = $group
    AND ($as_of IS NULL OR coalesce(n.at, n.first_at) <= $as_of)
  RETURN n, n.type AS type, n.content AS content, null AS prev_idx
}
RETURN n {.id, type: type, .name, content: content, .search_text, .speaker, .subject,
          .source, .target,
          status: CASE WHEN $as_of IS NULL OR n.valid_to IS NULL THEN n.status
                       WHEN n.valid_to <= $as_of THEN 'SUPERSEDED'
                       ELSE coalesce(n.first_status, n.status) END,
          .turn_id, .source_id, .conversation_id, .idx,
          time_start_s: n.time_start.epochSeconds, time_end_s: n.time_end.epochSeconds,
          .time_text, at_s: n.at.epochSeconds, at_off: n.at.offsetSeconds,
          consolidated: coalesce(n.consolidated, false),
          .quote, .confidence,
          prev_idx: prev_idx} AS node,
       CASE WHEN $vector IS NULL OR n.embedding IS NULL THEN 0.0
            ELSE vector.similarity.cosine(n.embedding, $vector) END AS sim
