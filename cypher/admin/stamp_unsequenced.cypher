// Nodes written before vector sequence numbers existed get vseq 0, so that the
// (group_id, vseq) indexes, which a search's refresh reads, hold every node with a vector.
// Idempotent; `cogmem init` runs it (a label scan; nothing to write on a current store).
MATCH (n)
WHERE (n:Turn OR n:Memory) AND n.vseq IS NULL AND n.embedding IS NOT NULL
CALL (n) {
  SET n.vseq = 0
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(n) AS stamped
