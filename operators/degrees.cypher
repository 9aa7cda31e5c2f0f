// How many relationships each of the nodes $ids of group $group has (Neo4j keeps a dense
// node's degree, so this does not expand it): which of them Traverse reaches through the
// vector index (traverse_hop_indexed) rather than by scoring every neighbour.
UNWIND $ids AS id
MATCH (a:Memory {id: id})
WHERE a.group_id = $group
RETURN a.id AS id, COUNT { (a)--() } AS degree
