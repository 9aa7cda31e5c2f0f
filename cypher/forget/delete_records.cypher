// Forgetting (issue 50): delete the memory records of group $group whose ids are in $ids, with
// every relationship they have (their vectors and fulltext entries go with them).
UNWIND $ids AS rid
MATCH (m:Memory {id: rid})
WHERE m.group_id = $group
DETACH DELETE m
RETURN count(*) AS deleted
