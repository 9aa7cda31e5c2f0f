// Generated from scripts/cypher-templates/operators/nearest_records_typed_as_of.cypher by scripts/expand-cypher: edit the
// template (or its fragments), then run the script.
// Anchor, vector half, exact, for records of some types as of a time: the $k memory
// records of group $group whose type is one of $types, said by $as_of, nearest to $vector,
// each with the status it had then: records through the (group_id, type, at) index,
// entities through (group_id, first_at), so only those of the types said by then are read
// (nearest_records_as_of with $types, reading far fewer nodes in a large group).
CALL () {
  MATCH (n:Memory) WHERE n.group_id = $group AND n.type IN $types AND n.at <= $as_of
  RETURN n
  UNION ALL
  MATCH (n:Memory) WHERE n.group_id = $group AND n.first_at <= $as_of AND n.type IN $types
  RETURN n
}
WITH n
WHERE n.embedding IS NOT NULL
WITH n, vector.similarity.cosine(n.embedding, $vector) AS sim
ORDER BY sim DESC, n.id
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
       sim
