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
          status: {{claim_status_as_of n}},
          {{record_fields n}}} AS node,
       score,
       CASE WHEN $vector IS NULL OR n.embedding IS NULL THEN 0.0
            ELSE vector.similarity.cosine(n.embedding, $vector) END AS sim
