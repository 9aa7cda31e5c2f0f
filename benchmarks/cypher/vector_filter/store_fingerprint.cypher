// What benchmark store the database holds now: its node count, group count, and the
// embedding of the node with id 0 (to tell two stores of the same size apart).
MATCH (n:Turn)
WHERE n.bench = true
WITH count(n) AS nodes, count(DISTINCT n.group_id) AS groups
OPTIONAL MATCH (first:Turn {id: 0})
WHERE first.bench = true
RETURN nodes, groups, first.embedding AS first
