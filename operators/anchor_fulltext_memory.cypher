// Anchor, lexical half: memory records from the fulltext index (BM25, English analyzer).
// $query is an escaped Lucene query that already requires +group_key:<group token>;
// $types (or null) restricts record types. Each hit carries its cosine similarity to
// $vector, so lexical and vector candidates can be fused on equal terms.
CALL db.index.fulltext.queryNodes('memory_text', $query, {limit: $limit})
YIELD node, score
WHERE node.group_id = $group AND ($types IS NULL OR node.type IN $types)
RETURN node.id AS id, node.type AS type, node.name AS name, node.content AS content,
       node.quote AS quote, node.speaker AS speaker, node.subject AS subject,
       node.source AS source, node.target AS target, node.status AS status,
       node.turn_id AS turn_id, node.time_start.epochSeconds AS time_start_s, node.time_end.epochSeconds AS time_end_s,
       node.time_text AS time_text, node.at.epochSeconds AS at_s, node.aliases AS aliases,
       coalesce(node.consolidated, false) AS consolidated,
       score AS lexical,
       CASE WHEN node.embedding IS NULL THEN 0.0
            ELSE vector.similarity.cosine(node.embedding, $vector) END AS vector
ORDER BY score DESC
LIMIT $limit
