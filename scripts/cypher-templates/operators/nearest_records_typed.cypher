// Anchor, vector half, exact, for records of some types: the $k memory records of group
// $group whose type is one of $types nearest to $vector (Neo4j's cosine similarity,
// (1 + cos) / 2), found through the (group_id, type) index, so that a rare type in a large
// group costs what that type holds. Equal scores by id. nearest_records with $types set,
// cheaper.
// $as_of (null: now): only what was said by then, each record with the status it had
// then (see operators/README.md).
MATCH (n:Memory)
WHERE n.group_id = $group
  AND ($as_of IS NULL OR coalesce(n.at, n.first_at) <= $as_of)
  AND n.type IN $types AND n.embedding IS NOT NULL
WITH n, vector.similarity.cosine(n.embedding, $vector) AS sim
ORDER BY sim DESC, n.id
LIMIT $k
RETURN n {.id, .type, .name, .content, .speaker, .subject, .source, .target,
          status: {{claim_status_as_of n}},
          {{record_fields n}}} AS node,
       sim
