// Anchor over verbatim turns, lexical half: BM25 over the date- and speaker-prefixed text.
CALL db.index.fulltext.queryNodes('turn_text', $query, {limit: $limit})
YIELD node, score
WHERE node.group_id = $group
RETURN node.id AS id, 'Turn' AS type, node.full_text AS content, node.speaker AS speaker,
       node.source_id AS source_id, node.conversation_id AS conversation_id,
       node.idx AS idx, node.at.epochSeconds AS at_s, score AS lexical,
       CASE WHEN node.embedding IS NULL THEN 0.0
            ELSE vector.similarity.cosine(node.embedding, $vector) END AS vector
ORDER BY score DESC
LIMIT $limit
