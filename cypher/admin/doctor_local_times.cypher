// Nodes whose at / time_start / time_end is a LOCAL DATETIME (written from a naive Python
// datetime before cogmem took naive datetimes as UTC): per group and property.
// $group: one group, or null for every group. `cogmem doctor` runs it.
CALL {
  MATCH (n:Memory) WHERE $group IS NULL OR n.group_id = $group RETURN n
  UNION
  MATCH (n:Turn) WHERE $group IS NULL OR n.group_id = $group RETURN n
  UNION
  MATCH (n:Session) WHERE $group IS NULL OR n.group_id = $group RETURN n
}
UNWIND [key IN ['at', 'time_start', 'time_end'] WHERE n[key] IS :: LOCAL DATETIME NOT NULL] AS key
RETURN n.group_id AS group, key, count(*) AS nodes
ORDER BY group, key
