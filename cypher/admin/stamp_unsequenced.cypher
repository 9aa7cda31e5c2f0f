// Nodes written before vector sequence numbers existed get vseq 0, so that the
// (group_id, vseq) indexes, which a search's refresh reads, hold every node with a vector.
// Idempotent (a label scan; nothing to write on a current store); `cogmem init` runs it,
// and so does a Memory's first use of a store that meta/set_sequenced has not marked.
MATCH (n)
WHERE (n:Turn OR n:Memory) AND n.vseq IS NULL AND n.embedding IS NOT NULL
CALL (n) {
  SET n.vseq = 0
} IN TRANSACTIONS OF 10000 ROWS
RETURN count(n) AS stamped
