// Anchor, vector half, exact, as of a time: the $k turns of group $group said by $as_of
// nearest to $vector, found through the (group_id, at) index (only those said by then are
// read) and scored one by one, as nearest_turns scores the whole group. For a search as of
// a date whose group held few enough turns then (cogmem/retrieval/graph_source.py).
MATCH (n:Turn)
WHERE n.group_id = $group AND n.at <= $as_of AND n.embedding IS NOT NULL
WITH n, vector.similarity.cosine(n.embedding, $vector) AS sim
ORDER BY sim DESC, n.id
LIMIT $k
RETURN n {.id, type: 'Turn', .name, content: n.full_text, .search_text, .speaker, .subject,
          .source, .target, .status, .turn_id, .source_id, .conversation_id, .idx,
          time_start_s: n.time_start.epochSeconds, time_end_s: n.time_end.epochSeconds,
          .time_text, at_s: n.at.epochSeconds, consolidated: coalesce(n.consolidated, false),
          .quote, .confidence} AS node,
       sim
