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
          status: {{claim_status_as_of n}},
          {{record_fields n}},
          prev_idx: prev_idx} AS node,
       CASE WHEN $vector IS NULL OR n.embedding IS NULL THEN 0.0
            ELSE vector.similarity.cosine(n.embedding, $vector) END AS sim
