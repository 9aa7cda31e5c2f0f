// Forgetting (issue 50): the KNOWS edges to the persons $persons of group $group (persons that
// lose evidence), each with the turns that stay ($turns are forgotten), said by the edge's
// source and evidencing its target, in conversation order: the turns that may still say the
// relation. The caller extracts them again and keeps the edge only when one does.
UNWIND $persons AS pid
MATCH (a:Memory:Person)-[x:KNOWS]->(b:Memory:Person {id: pid})
WHERE b.group_id = $group
RETURN a.id AS src, b.id AS dst, b.name AS name,
       [(b)-[:EVIDENCED_BY]->(t:Turn)<-[:HAS_TURN]-(:Session)<-[:HAS_SESSION]-(c:Conversation)
        WHERE t.speaker = a.name AND NOT t.id IN $turns
        | {id: t.id, source_id: t.source_id, speaker: t.speaker, text: t.text,
           caption: t.caption, at: t.at, idx: t.idx, session_index: t.session_index,
           conversation: c.source_id, speakers: c.speakers}] AS turns
