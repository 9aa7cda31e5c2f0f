// Everything a grep for forgotten text reads (issue 50): every node of group $group whatever
// its label (any node whose group_id is $group: memories, turns, sessions, conversations,
// :ForgetAudit, :CogmemMeta locks) and every :CogmemMeta node of the database (tokens,
// epochs, counters), each with its labels and all its properties, vectors included; and
// every relationship that touches a node of the group, with its properties. A scan: for
// tests and audits, not for a large database.
CALL () {
  MATCH (n)
  WHERE n.group_id = $group OR n:CogmemMeta
  RETURN collect(n {.*, labels: labels(n)}) AS nodes
}
CALL () {
  MATCH (a)-[r]-()
  WHERE a.group_id = $group
  RETURN collect(DISTINCT r {.*, type: type(r), src: startNode(r).id, dst: endNode(r).id}) AS rels
}
RETURN nodes, rels
