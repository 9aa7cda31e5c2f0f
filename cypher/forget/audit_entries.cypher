// Forgetting (issue 50): the audit entries of group $group, oldest first.
MATCH (a:ForgetAudit {group_id: $group})
RETURN a.id AS id, a.at AS at, a.kind AS kind, a.turns AS turns, a.records AS records,
       a.facts AS facts, a.actor AS actor
ORDER BY at, id
