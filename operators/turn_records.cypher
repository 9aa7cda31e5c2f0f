// Generated from scripts/cypher-templates/operators/turn_records.cypher by scripts/expand-cypher: edit the
// template (or its fragments), then run the script.
// The records evidenced by turns $ids (to show a turn through its typed records); their
// similarity to the question comes from the caller's in-process vectors.
// $as_of (null: now): only what was said by then, each record with the status it had
// then (see operators/README.md).
MATCH (m:Memory)-[:EVIDENCED_BY]->(t:Turn)
WHERE t.id IN $ids AND t.group_id = $group AND NOT m.type IN ['Person', 'Concept']
  AND ($as_of IS NULL OR coalesce(m.at, m.first_at) <= $as_of)
RETURN t.id AS turn_id, m.id AS id, m.type AS type, m.content AS content, m.quote AS quote,
       m.speaker AS speaker, m.subject AS subject, m.source AS source, m.target AS target,
       CASE WHEN $as_of IS NULL OR m.valid_to IS NULL THEN m.status
                       WHEN m.valid_to <= $as_of THEN 'SUPERSEDED'
                       ELSE coalesce(m.first_status, m.status) END AS status,
       m.time_start.epochSeconds AS time_start_s, m.time_end.epochSeconds AS time_end_s,
       m.time_text AS time_text, m.confidence AS confidence
