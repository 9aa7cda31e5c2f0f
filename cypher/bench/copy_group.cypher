// Benchmark only (`cogmem bench scale --crowded`): copies of group $group's turns and memory
// records, with their embeddings, into the group $copy (fulltext token $copy_key), without
// edges. The copies crowd the shared vector and fulltext indexes like look-alike tenants.
MATCH (n)
WHERE (n:Turn OR n:Memory) AND n.group_id = $group
CREATE (c)
SET c = properties(n), c.group_id = $copy, c.id = n.id + '~' + $copy,
    c.group_key = CASE WHEN n.group_key IS NULL THEN null ELSE $copy_key END
FOREACH (_ IN CASE WHEN n:Turn THEN [1] ELSE [] END | SET c:Turn)
FOREACH (_ IN CASE WHEN n:Memory THEN [1] ELSE [] END | SET c:Memory)
WITH c, n
CALL (c, n) {
  WITH c, n WHERE n.embedding IS NOT NULL
  CALL db.create.setNodeVectorProperty(c, 'embedding', n.embedding)  // stored as float32
}
RETURN count(c) AS copied
