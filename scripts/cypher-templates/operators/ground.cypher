// Ground: the source turns of records $ids (at most $per_record each), verbatim, or the
// turns $ids themselves, with up to $window (at most 10) turns before and after each in the
// same conversation, each turn once, with the records each turn evidences: their ids, and
// for a caller without the group's copy in process their fields and similarity to $vector.
// $as_of (null: now): only what was said by then, each record with the status it had
// then (see operators/README.md).
CALL {
  MATCH (m:Memory)
  WHERE m.id IN $ids AND m.group_id = $group
  CALL (m) {
    MATCH (m)-[:EVIDENCED_BY]->(t:Turn)
    WHERE ($as_of IS NULL OR coalesce(t.at, t.first_at) <= $as_of)
    RETURN t
    ORDER BY t.idx
    LIMIT $per_record
  }
  RETURN m.id AS record_id, t
  UNION
  MATCH (t:Turn)
  WHERE t.id IN $ids AND t.group_id = $group
    AND ($as_of IS NULL OR coalesce(t.at, t.first_at) <= $as_of)
  RETURN t.id AS record_id, t
}
// its neighbours by order, not by idx: up to $window turns along the NEXT chain each way
// (a forget bridges the chain over the turns it removes and keeps the others' idx, so the
// turn before one that follows a forgotten turn is not at idx - 1); at most 10 each way
CALL (t) {
  MATCH path = (t)-[:NEXT*0..10]->(n:Turn)
  WHERE length(path) <= $window AND n.group_id = $group
    AND ($as_of IS NULL OR coalesce(n.at, n.first_at) <= $as_of)
  RETURN n, length(path) AS offset
  UNION
  MATCH path = (n:Turn)-[:NEXT*1..10]->(t)
  WHERE length(path) <= $window AND n.group_id = $group
    AND ($as_of IS NULL OR coalesce(n.at, n.first_at) <= $as_of)
  RETURN n, -length(path) AS offset
}
// each turn once (grounded turns that neighbour each other share turns): reached from the
// nearest grounded turn
WITH n, offset, record_id, t
ORDER BY abs(offset), record_id, t.idx
WITH n, head(collect({record_id: record_id, turn_id: t.id, offset: offset})) AS via
WITH n, via,
     [(r:Memory)-[:EVIDENCED_BY]->(n) WHERE NOT r.type IN ['Person', 'Concept']
           AND ($as_of IS NULL OR coalesce(r.at, r.first_at) <= $as_of) | r] AS recs
RETURN via.record_id AS record_id, via.turn_id AS turn_id, n.id AS id, via.offset AS offset,
       [r IN recs | r.id] AS records,
       // what a search without the group's copy in process needs of the turn and its
       // records: their fields, and their similarity to $vector (0.0 when null)
       n {.id, type: 'Turn', content: n.full_text, .speaker, .source_id, .conversation_id,
          .idx, at_s: n.at.epochSeconds, at_off: n.at.offsetSeconds,
          prev_idx: [(p:Turn)-[:NEXT]->(n) | p.idx][0]} AS node,
       CASE WHEN $vector IS NULL OR n.embedding IS NULL THEN 0.0
            ELSE vector.similarity.cosine(n.embedding, $vector) END AS sim,
       [r IN recs | r {.id, .type, .name, .content, .speaker, .subject, .source, .target,
          status: {{claim_status_as_of r}},
          {{record_fields r}},
          sim: CASE WHEN $vector IS NULL OR r.embedding IS NULL THEN 0.0
                    ELSE vector.similarity.cosine(r.embedding, $vector) END}] AS record_rows
ORDER BY record_id, turn_id, offset
