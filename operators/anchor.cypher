// Anchor in one round trip: memory records and verbatim turns, each from the fulltext index
// (BM25; $query already requires +group_key:<group token>, so it filters inside the index)
// and from the nearest neighbours the caller found in its in-process copy of the group's
// vectors ($record_hits, $turn_hits: {id, score}; cogmem.retrieval.vectors), fetched by id.
// $records / $turns switch the two halves on. Only what the ranking reads comes back: ids,
// types, short fields and scores, no vectors (the caller has them).
CALL () {
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
  UNWIND $record_hits AS hit
  MATCH (node:Memory {id: hit.id})
  WHERE node.group_id = $group
  RETURN 'record' AS kind, 'anchor:vector' AS step, node, 0.0 AS lexical, hit.score AS vector
  UNION ALL
  UNWIND $turn_hits AS hit
  MATCH (node:Turn {id: hit.id})
  WHERE node.group_id = $group
  RETURN 'turn' AS kind, 'anchor:turn-vector' AS step, node, 0.0 AS lexical,
         hit.score AS vector
}
// a node that several halves found comes back once, with every step that found it
WITH kind, node, collect(step) AS steps, max(lexical) AS lexical, max(vector) AS vector
RETURN kind, steps, node.id AS id,
       CASE kind WHEN 'turn' THEN 'Turn' ELSE node.type END AS type,
       node.name AS name,
       CASE kind WHEN 'turn' THEN node.full_text ELSE node.content END AS content,
       node.speaker AS speaker, node.subject AS subject, node.source AS source,
       node.target AS target, node.status AS status, node.turn_id AS turn_id,
       node.source_id AS source_id, node.conversation_id AS conversation_id, node.idx AS idx,
       node.time_start.epochSeconds AS time_start_s, node.time_end.epochSeconds AS time_end_s,
       node.time_text AS time_text, node.at.epochSeconds AS at_s,
       coalesce(node.consolidated, false) AS consolidated, lexical, vector
