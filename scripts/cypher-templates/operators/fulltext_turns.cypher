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
          status: {{claim_status_as_of n}},
          {{record_fields n}},
          // the turn before it in its conversation (NEXT): its neighbour by order, not idx - 1
          prev_idx: [(p:Turn)-[:NEXT]->(n) | p.idx][0]} AS node,
       score,
       CASE WHEN $vector IS NULL OR n.embedding IS NULL THEN 0.0
            ELSE vector.similarity.cosine(n.embedding, $vector) END AS sim
ORDER BY score DESC, n.id
