// Forgetting (issue 50): the record that a forget happened, in group $group: when, what kind
// (turns, conversation, span), how many turns and records went, which token asked ($actor,
// null for a local caller). Never what was said: no text, quote, id of a turn or vector.
CREATE (a:ForgetAudit {id: $id, group_id: $group})
SET a.at = datetime(), a.kind = $kind, a.turns = $turns, a.records = $records,
    a.facts = $facts, a.actor = $actor
RETURN a.id AS id, a.at AS at
