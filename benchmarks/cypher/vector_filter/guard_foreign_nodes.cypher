// How many nodes in this database are not benchmark :Turn nodes (the benchmark refuses to
// wipe a store that holds anything else).
MATCH (n)
WHERE NOT (n:Turn AND n.bench = true)
RETURN count(n) AS foreign
