// The whole database's node and relationship counts (from the count store: cheap).
CALL {
  MATCH (n)
  RETURN count(n) AS nodes
}
CALL {
  MATCH ()-[r]->()
  RETURN count(r) AS relationships
}
RETURN nodes, relationships
