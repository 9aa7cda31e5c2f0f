// Anchor, vector half: memory records nearest to $vector (cosine, HNSW index). The index
// is shared by all groups, so $k over-fetches and the group filter applies afterwards.
CALL db.index.vector.queryNodes('memory_embedding', $k, $vector)
YIELD node, score
WHERE node.group_id = $group AND ($types IS NULL OR node.type IN $types)
RETURN node.id AS id, node.type AS type, node.name AS name, node.content AS content,
       node.quote AS quote, node.speaker AS speaker, node.subject AS subject,
       node.source AS source, node.target AS target, node.status AS status,
       node.turn_id AS turn_id, node.time_start.epochSeconds AS time_start_s, node.time_end.epochSeconds AS time_end_s,
       node.time_text AS time_text, node.at.epochSeconds AS at_s, node.aliases AS aliases,
       coalesce(node.consolidated, false) AS consolidated,
       0.0 AS lexical, score AS vector
ORDER BY score DESC
LIMIT $limit
