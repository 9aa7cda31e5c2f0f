// Import: create or replace memory records from $nodes rows {id, labels, props}. The type
// label comes from a fixed list below (any other label is never written). Only nodes of
// group $group are written; the returned count tells how many were.
UNWIND $nodes AS row
MERGE (n:Memory {id: row.id})
ON CREATE SET n.group_id = $group
WITH n, row
WHERE n.group_id = $group
SET n = row.props
FOREACH (_ IN CASE WHEN 'Person' IN row.labels THEN [1] ELSE [] END | SET n:Person)
FOREACH (_ IN CASE WHEN 'Concept' IN row.labels THEN [1] ELSE [] END | SET n:Concept)
FOREACH (_ IN CASE WHEN 'Event' IN row.labels THEN [1] ELSE [] END | SET n:Event)
FOREACH (_ IN CASE WHEN 'Fact' IN row.labels THEN [1] ELSE [] END | SET n:Fact)
FOREACH (_ IN CASE WHEN 'Claim' IN row.labels THEN [1] ELSE [] END | SET n:Claim)
FOREACH (_ IN CASE WHEN 'Decision' IN row.labels THEN [1] ELSE [] END | SET n:Decision)
FOREACH (_ IN CASE WHEN 'Todo' IN row.labels THEN [1] ELSE [] END | SET n:Todo)
FOREACH (_ IN CASE WHEN 'Reminder' IN row.labels THEN [1] ELSE [] END | SET n:Reminder)
FOREACH (_ IN CASE WHEN 'Insight' IN row.labels THEN [1] ELSE [] END | SET n:Insight)
RETURN count(n) AS nodes
