// Ground: the source turns of records $ids (at most $per_record each), verbatim, or the
// turns $ids themselves, with up to $window turns before and after each in the same
// conversation, each turn once, with the records each turn evidences (what Evidence shows
// of them). Similarities to the question are the caller's (its in-process vectors).
CALL {
  MATCH (m:Memory)
  WHERE m.id IN $ids AND m.group_id = $group
  CALL (m) {
    MATCH (m)-[:EVIDENCED_BY]->(t:Turn)
    RETURN t
    ORDER BY t.idx
    LIMIT $per_record
  }
  RETURN m.id AS record_id, t
  UNION
  MATCH (t:Turn)
  WHERE t.id IN $ids AND t.group_id = $group
  RETURN t.id AS record_id, t
}
CALL (t) {
  MATCH (n:Turn {conversation_id: t.conversation_id})
  WHERE n.idx >= t.idx - $window AND n.idx <= t.idx + $window AND n.group_id = $group
  RETURN n
}
// each turn once (grounded turns that neighbour each other share turns): reached from the
// nearest grounded turn
WITH n, record_id, t
ORDER BY abs(n.idx - t.idx), record_id
WITH n, head(collect({record_id: record_id, turn_id: t.id, offset: n.idx - t.idx})) AS via
RETURN via.record_id AS record_id, via.turn_id AS turn_id, n.id AS id,
       n.source_id AS source_id, n.conversation_id AS conversation_id, n.speaker AS speaker,
       n.full_text AS text, n.at.epochSeconds AS at_s, n.idx AS idx, via.offset AS offset,
       [(r:Memory)-[:EVIDENCED_BY]->(n)
        WHERE NOT r.type IN ['Person', 'Concept'] |
        {id: r.id, type: r.type, source: r.source, target: r.target, status: r.status,
         content: r.content, quote: r.quote, speaker: r.speaker, subject: r.subject,
         time_start_s: r.time_start.epochSeconds, time_end_s: r.time_end.epochSeconds,
         time_text: r.time_text, confidence: r.confidence}] AS records
ORDER BY record_id, turn_id, offset
