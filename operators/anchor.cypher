// Anchor in one round trip: memory records and verbatim turns, each from the fulltext index
// (BM25; $query already requires +group_key:<group token>, so it filters inside the index)
// and by vector similarity to $vector. $records / $turns switch the two halves on.
//
// Vector half, per label: the shared HNSW index over-fetches $k neighbours and keeps the
// group's best $limit (of $types). When fewer than $limit of them belong to the group —
// other groups crowd the index, or the group is smaller than $limit — an exact cosine scan
// over the group's own nodes (through the group_id range index) replaces them: it cannot be
// crowded, and a group that the index serves never pays for it. The test counts the
// group's neighbours of ANY type: a selective $types in a large group is not crowding,
// and must not turn every typed search into a scan of the whole group. Only what the ranking
// reads comes back: ids, types, short fields and scores, no vectors.
CALL () {
  WITH 1 AS one
  WHERE $records
  CALL db.index.vector.queryNodes('memory_embedding', $k, $vector)
  YIELD node, score
  WHERE node.group_id = $group
  WITH node, score
  ORDER BY score DESC
  WITH collect({node: node, score: score}) AS mine
  RETURN size(mine) AS record_group_hits,
         [hit IN mine WHERE $types IS NULL OR hit.node.type IN $types][..$limit] AS record_hits
}
CALL () {
  WITH 1 AS one
  WHERE $turns
  CALL db.index.vector.queryNodes('turn_embedding', $k, $vector)
  YIELD node, score
  WHERE node.group_id = $group
  WITH node, score
  ORDER BY score DESC
  LIMIT $limit
  RETURN collect({node: node, score: score}) AS turn_hits
}
WITH record_hits, turn_hits,
     $records AND record_group_hits < $limit AS scan_records,
     $turns AND size(turn_hits) < $limit AS scan_turns
CALL (record_hits, turn_hits, scan_records, scan_turns) {
  WITH $query AS q
  WHERE $records AND q IS NOT NULL
  CALL db.index.fulltext.queryNodes('memory_text', q, {limit: $limit})
  YIELD node, score
  WHERE node.group_id = $group AND ($types IS NULL OR node.type IN $types)
  RETURN 'record' AS kind, 'anchor:fulltext' AS step, node, score AS lexical, null AS vector
  UNION ALL
  WITH $query AS q
  WHERE $turns AND q IS NOT NULL
  CALL db.index.fulltext.queryNodes('turn_text', q, {limit: $limit})
  YIELD node, score
  WHERE node.group_id = $group
  RETURN 'turn' AS kind, 'anchor:turn-fulltext' AS step, node, score AS lexical,
         null AS vector
  UNION ALL
  UNWIND CASE WHEN scan_records THEN [] ELSE record_hits END AS hit
  RETURN 'record' AS kind, 'anchor:vector' AS step, hit.node AS node, 0.0 AS lexical,
         hit.score AS vector
  UNION ALL
  UNWIND CASE WHEN scan_turns THEN [] ELSE turn_hits END AS hit
  RETURN 'turn' AS kind, 'anchor:turn-vector' AS step, hit.node AS node, 0.0 AS lexical,
         hit.score AS vector
  UNION ALL
  WITH 1 AS one
  WHERE scan_records
  MATCH (node:Memory {group_id: $group})
  WHERE node.embedding IS NOT NULL AND ($types IS NULL OR node.type IN $types)
  WITH node, vector.similarity.cosine(node.embedding, $vector) AS score
  ORDER BY score DESC
  LIMIT $limit
  RETURN 'record' AS kind, 'anchor:vector' AS step, node, 0.0 AS lexical, score AS vector
  UNION ALL
  WITH 1 AS one
  WHERE scan_turns
  MATCH (node:Turn {group_id: $group})
  WHERE node.embedding IS NOT NULL
  WITH node, vector.similarity.cosine(node.embedding, $vector) AS score
  ORDER BY score DESC
  LIMIT $limit
  RETURN 'turn' AS kind, 'anchor:turn-vector' AS step, node, 0.0 AS lexical, score AS vector
}
WITH scan_records OR scan_turns AS exact, kind, step, node, lexical,
     coalesce(vector, CASE WHEN node.embedding IS NULL THEN 0.0
                           ELSE vector.similarity.cosine(node.embedding, $vector) END) AS vector
RETURN exact, kind, step, node.id AS id,
       CASE kind WHEN 'turn' THEN 'Turn' ELSE node.type END AS type,
       node.name AS name,
       CASE kind WHEN 'turn' THEN node.full_text ELSE node.content END AS content,
       node.speaker AS speaker, node.subject AS subject, node.source AS source,
       node.target AS target, node.status AS status, node.turn_id AS turn_id,
       node.source_id AS source_id, node.conversation_id AS conversation_id, node.idx AS idx,
       node.time_start.epochSeconds AS time_start_s, node.time_end.epochSeconds AS time_end_s,
       node.time_text AS time_text, node.at.epochSeconds AS at_s,
       coalesce(node.consolidated, false) AS consolidated, lexical, vector
