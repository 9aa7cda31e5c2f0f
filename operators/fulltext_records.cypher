// Generated from scripts/cypher-templates/operators/fulltext_records.cypher by scripts/expand-cypher: edit the
// template (or its fragments), then run the script.
// Anchor, lexical half: the best memory records of group $group (of types $types, all when
// null; at most $k) for the Lucene query $query (the group's key as a required clause, the
// question's words against content and name), BM25 as the memory_text index scores it,
// with each record's similarity to $vector (null: none). $fetch ≥ $k leaves room for the
// records of other types.
// $as_of (null: now): only what was said by then, each record with the status it had
// then (see operators/README.md).
CALL db.index.fulltext.queryNodes('memory_text', $query, {limit: $fetch}) YIELD node AS n, score
WITH n, score
WHERE n.group_id = $group
  AND ($as_of IS NULL OR coalesce(n.at, n.first_at) <= $as_of)
  AND ($types IS NULL OR n.type IN $types)
WITH n, score
ORDER BY score DESC, n.id
LIMIT $k
RETURN n {.id, .type, .name, .content, .speaker, .subject, .source, .target,
          status: CASE WHEN $as_of IS NULL OR n.valid_to IS NULL THEN n.status
                       WHEN n.valid_to <= $as_of THEN 'SUPERSEDED'
                       ELSE coalesce(n.first_status, n.status) END,
          .turn_id, .source_id, .conversation_id, .idx,
          time_start_s: n.time_start.epochSeconds, time_end_s: n.time_end.epochSeconds,
          .time_text, at_s: n.at.epochSeconds, at_off: n.at.offsetSeconds,
          consolidated: coalesce(n.consolidated, false),
          .quote, .confidence} AS node,
       score,
       CASE WHEN $vector IS NULL OR n.embedding IS NULL THEN 0.0
            ELSE vector.similarity.cosine(n.embedding, $vector) END AS sim
