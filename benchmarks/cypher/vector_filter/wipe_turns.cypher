// Delete the benchmark's :Turn nodes in batches (run in an auto-commit transaction).
MATCH (n:Turn)
WHERE n.bench = true
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF $batch ROWS
