// Group $group's turns and memory records written after sequence $seq (all of them when
// $seq is -1): vectors, and the fields a search ranks them by (what Anchor shows of a
// node, its place in its conversation, the turns that evidence it, a record's
// relationships to the group's other records as [type, other id, outgoing]), so that
// Anchor, Traverse, Intersect and Ground need no round trip. Every write that adds or
// removes such a relationship stamps both of its ends, so both are read again. A catch-up
// ($seq >= 0) reads no relationships of persons and concepts: operators/links_among reads
// those towards the other nodes read again, and the copy keeps the rest from before (an
// entity named in thousands of records would otherwise walk all of them after every live
// turn that names it). (These
// types join records only; the far end carries no label, or the planner would seek the
// group's index once per row.) The (group_id, vseq) index finds the new nodes without
// reading the rest of the group: every writer stamps vseq (older stores are stamped once,
// when a Memory first opens them). A turn's prev_idx is the idx of the turn before it (NEXT
// leads from it): its neighbour by order, which is not idx - 1 after a forget (the chain is
// bridged over a gap and idx kept); only a forget changes it, and a forget starts a new
// epoch (the copy is read afresh), so a catch-up need not read a turn appended after it.
// The SEEK hints keep that plan on small or fresh stores, where the planner's estimates
// would otherwise pick a scan of the whole index or the group's other indexes.
CALL () {
  MATCH (n:Turn)
  USING INDEX SEEK n:Turn(group_id, vseq)
  WHERE n.group_id = $group AND n.vseq > $seq AND n.embedding IS NOT NULL
  RETURN n, 'Turn' AS type, n.full_text AS content, n.search_text AS search_text,
         [] AS evidence, [] AS links, [(p:Turn)-[:NEXT]->(n) | p.idx][0] AS prev_idx
  UNION ALL
  MATCH (n:Memory)
  USING INDEX SEEK n:Memory(group_id, vseq)
  WHERE n.group_id = $group AND n.vseq > $seq AND n.embedding IS NOT NULL
  RETURN n, n.type AS type, n.content AS content, null AS search_text,
         CASE WHEN n.type IN ['Person', 'Concept'] THEN []
              ELSE [(n)-[:EVIDENCED_BY]->(t:Turn) | t.id] END AS evidence,
         CASE WHEN $seq >= 0 AND n.type IN ['Person', 'Concept'] THEN []
              ELSE [(n)-[r:PARTICIPATED_IN|INVOLVES|HAS_FACT|ABOUT|LIKES|DISLIKES|USES|KNOWS|
                     CLAIMS|TARGETS|SUPERSEDES|CONFLICTS_WITH|SUPPORTED_BY|REFERENCES|
                     CAUSES]-(m)
                    WHERE m.group_id = $group | [type(r), m.id, startNode(r) = n]] END AS links,
         null AS prev_idx
}
RETURN n.id AS id, type, n.embedding AS embedding, n.name AS name, content, search_text,
       evidence, links,
       n.speaker AS speaker, n.subject AS subject, n.source AS source, n.target AS target,
       n.status AS status,
       n.turn_id AS turn_id, n.source_id AS source_id,
       n.conversation_id AS conversation_id, n.idx AS idx, prev_idx,
       n.time_start.epochSeconds AS time_start_s, n.time_end.epochSeconds AS time_end_s,
       n.time_text AS time_text, n.at.epochSeconds AS at_s, n.at.offsetSeconds AS at_off,
       coalesce(n.consolidated, false) AS consolidated, n.quote AS quote,
       n.confidence AS confidence, n.aliases AS aliases
