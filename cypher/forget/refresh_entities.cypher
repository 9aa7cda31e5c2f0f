// Forgetting (issue 50): entities of group $group ($ids) that lost evidence: when they were
// first said (their earliest evidence turn; an entity has no time of its own) and its day
// token, their conversation (kept while a turn of it evidences them, else their latest
// evidence turn's), their aliases ($aliases: {id, aliases} for those whose aliases changed).
UNWIND $ids AS eid
MATCH (m:Memory {id: eid})
WHERE m.group_id = $group
OPTIONAL MATCH (m)-[:EVIDENCED_BY]->(t:Turn)
WITH m, t ORDER BY t.at DESC, t.idx DESC
WITH m, collect(t) AS ts
WITH m, ts, reduce(first = null, t IN ts |
                   CASE WHEN first IS NULL OR t.at < first THEN t.at ELSE first END) AS first
SET m.first_at = CASE WHEN m.at IS NOT NULL OR first IS NULL THEN m.first_at ELSE first END,
    m.conversation_id = CASE
      WHEN size(ts) = 0 OR any(t IN ts WHERE t.conversation_id = m.conversation_id)
      THEN m.conversation_id ELSE head(ts).conversation_id END,
    m.vseq = $vseq
SET m.said_key = CASE WHEN coalesce(m.at, m.first_at) IS NULL THEN null
                 ELSE 'd' + replace(toString(date(datetime(
                   {datetime: coalesce(m.at, m.first_at), timezone: 'UTC'}))), '-', '') END
WITH m, [a IN $aliases WHERE a.id = m.id | a.aliases] AS changed
SET m.aliases = CASE WHEN size(changed) = 0 THEN m.aliases ELSE head(changed) END
RETURN count(m) AS entities
