// Every group in the database: turns, memory records, conversations and the last ingest
// (when its newest turn was written).
CALL {
  MATCH (t:Turn)
  RETURN t.group_id AS group, count(*) AS turns, 0 AS records, 0 AS conversations,
         max(t.created_at) AS last_ingest
  UNION ALL
  MATCH (m:Memory)
  RETURN m.group_id AS group, 0 AS turns, count(*) AS records, 0 AS conversations,
         null AS last_ingest
  UNION ALL
  MATCH (c:Conversation)
  RETURN c.group_id AS group, 0 AS turns, 0 AS records, count(*) AS conversations,
         null AS last_ingest
}
WITH group, sum(turns) AS turns, sum(records) AS records, sum(conversations) AS conversations,
     max(last_ingest) AS last_ingest
WHERE group IS NOT NULL
RETURN group, turns, records, conversations, last_ingest
ORDER BY group
