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
          status: {{claim_status_as_of n}},
          {{record_fields n}}} AS node,
       sim
