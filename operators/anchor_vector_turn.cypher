// Anchor over verbatim turns, vector half (over-fetch $k, then keep the group's turns).
CALL db.index.vector.queryNodes('turn_embedding', $k, $vector)
YIELD node, score
WHERE node.group_id = $group
RETURN node.id AS id, 'Turn' AS type, node.full_text AS content, node.speaker AS speaker,
       node.source_id AS source_id, node.conversation_id AS conversation_id,
       node.idx AS idx, node.at.epochSeconds AS at_s, 0.0 AS lexical, score AS vector
ORDER BY score DESC
LIMIT $limit
