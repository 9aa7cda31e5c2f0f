// The relationships of a catch-up read's persons and concepts ($ids: what
// operators/vectors_since read again with $seq >= 0) to the other nodes it read ($among),
// as [type, other id, outgoing]. Both ends are known, so Neo4j expands from the end with
// fewer relationships: an entity named in thousands of records costs what its few changed
// neighbours cost, not a walk over all of its relationships.
UNWIND $ids AS id
MATCH (n:Memory {id: id})
WHERE n.group_id = $group
UNWIND $among AS other
MATCH (m:Memory {id: other})
WHERE m.group_id = $group AND m.id <> n.id
MATCH (n)-[r:PARTICIPATED_IN|INVOLVES|HAS_FACT|ABOUT|LIKES|DISLIKES|USES|KNOWS|CLAIMS|TARGETS|
          SUPERSEDES|CONFLICTS_WITH|SUPPORTED_BY|REFERENCES|CAUSES]-(m)
RETURN n.id AS id, collect([type(r), m.id, startNode(r) = n]) AS links
