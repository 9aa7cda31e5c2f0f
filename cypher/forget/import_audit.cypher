// Forgetting (issue 50): an import brings the export's forget audit entries ($rows: {id, at,
// kind, turns, records, facts, actor}) into group $group; MERGE: importing twice adds none.
UNWIND $rows AS r
MERGE (a:ForgetAudit {id: r.id, group_id: $group})
SET a.at = r.at, a.kind = r.kind, a.turns = r.turns, a.records = r.records,
    a.facts = r.facts, a.actor = r.actor
RETURN count(a) AS entries
