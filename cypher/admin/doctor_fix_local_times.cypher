// Convert up to $batch nodes' LOCAL DATETIME at / time_start / time_end to UTC DATETIME
// (a naive datetime is UTC in cogmem); returns how many nodes changed. Call until 0.
// $group: one group, or null for every group. `cogmem doctor --fix` runs it.
CALL {
  MATCH (n:Memory) WHERE $group IS NULL OR n.group_id = $group RETURN n
  UNION
  MATCH (n:Turn) WHERE $group IS NULL OR n.group_id = $group RETURN n
  UNION
  MATCH (n:Session) WHERE $group IS NULL OR n.group_id = $group RETURN n
}
WITH n
WHERE n.at IS :: LOCAL DATETIME NOT NULL
   OR n.time_start IS :: LOCAL DATETIME NOT NULL
   OR n.time_end IS :: LOCAL DATETIME NOT NULL
WITH n LIMIT $batch
SET n.at = CASE WHEN n.at IS :: LOCAL DATETIME NOT NULL
                THEN datetime({datetime: n.at, timezone: 'UTC'}) ELSE n.at END,
    n.time_start = CASE WHEN n.time_start IS :: LOCAL DATETIME NOT NULL
                THEN datetime({datetime: n.time_start, timezone: 'UTC'}) ELSE n.time_start END,
    n.time_end = CASE WHEN n.time_end IS :: LOCAL DATETIME NOT NULL
                THEN datetime({datetime: n.time_end, timezone: 'UTC'}) ELSE n.time_end END
RETURN count(n) AS fixed
