// A group's timeline, dated (a table)
// Every memory record of the group (people and concepts aside) in the order it was said, with
// the time it refers to (resolved from "last year", "next month"...), type, speaker, status
// and source turn.
// In Neo4j Browser first set, e.g.:  :param group => "default"
MATCH (m:Memory {group_id: $group})
WHERE m.at IS NOT NULL AND NOT m:Person AND NOT m:Concept
RETURN m.at AS said_at,
       m.type AS type,
       m.speaker AS speaker,
       m.content AS content,
       m.time_text AS refers_to,
       m.time_start AS time_start,
       m.time_end AS time_end,
       m.status AS status,
       m.turn_source_id AS turn
ORDER BY said_at, turn
LIMIT 500
