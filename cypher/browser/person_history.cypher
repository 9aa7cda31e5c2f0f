// A person's opinions and plans over time, each with the interval it held (a table)
// Every claim $person holds and every plan of $person's (an Event or Todo with a plan
// status), only those about $about when it is not null (words of the person or thing,
// any case), oldest first: what it says; valid_from, when it was said; valid_to, when the
// record that replaced, did or called it off was said (null: it still holds); how it was
// opened and how it stands now; the turn that opened it and the one that closed it, with
// their words. The status at any time T follows: opened_as before valid_to, then
// SUPERSEDED. `cogmem history PERSON [--about X]` runs this query.
// In Neo4j Browser first set, e.g.:  :param group => "default"  :param person => "Lena"
// and  :param about => null  (or a word: :param about => "Jonas")
MATCH (m:Memory)
WHERE m.group_id = $group
  AND ((m:Claim AND toLower(coalesce(m.source, m.speaker)) = toLower($person))
       OR ((m:Event OR m:Todo) AND m.status IS NOT NULL
           AND toLower(coalesce(m.subject, m.speaker)) = toLower($person)))
  AND ($about IS NULL OR toLower(coalesce(m.target, '')) CONTAINS toLower($about)
       OR toLower(m.content) CONTAINS toLower($about))
OPTIONAL MATCH (later:Memory)-[x:SUPERSEDES]->(m)
WITH m, later, x
ORDER BY later.at, later.id
WITH m, head(collect(later)) AS closer, head(collect(x.rule)) AS rule
WITH coalesce(m.target, '') AS about, m.content AS what, m.at AS valid_from,
     m.valid_to AS valid_to, coalesce(m.first_status, m.status) AS opened_as,
     m.status AS status_now, m.turn_source_id AS opened_by, m.quote AS opened_quote,
     closer.turn_source_id AS closed_by, closer.quote AS closed_quote,
     CASE WHEN closer IS NULL THEN null ELSE coalesce(rule, 'superseded') END AS how,
     m.type AS kind
// a plan told as a Todo and as an Event is one row
RETURN about, what, valid_from, valid_to, opened_as, status_now, opened_by, opened_quote,
       closed_by, closed_quote, how, collect(DISTINCT kind) AS kinds
ORDER BY valid_from, opened_by, what
