// Ground: the source turns of records $ids (at most $per_record each), verbatim, or the
// turns $ids themselves, with up to $window turns before and after each in the same
// conversation, each turn once, with the ids of the records each turn evidences. Only ids
// come back: the caller holds the group's nodes (fields and vectors) in process.
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
ORDER BY abs(n.idx - t.idx), record_id, t.idx
WITH n, head(collect({record_id: record_id, turn_id: t.id, offset: n.idx - t.idx})) AS via
RETURN via.record_id AS record_id, via.turn_id AS turn_id, n.id AS id, via.offset AS offset,
       [(r:Memory)-[:EVIDENCED_BY]->(n) WHERE NOT r.type IN ['Person', 'Concept'] | r.id]
         AS records
ORDER BY record_id, turn_id, offset
