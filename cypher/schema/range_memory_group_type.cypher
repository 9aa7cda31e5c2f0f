// Composite range index: a group's memory records of some types (a typed exact vector scan
// and its count read only those, not the whole group).
CREATE INDEX memory_group_type IF NOT EXISTS FOR (n:Memory) ON (n.group_id, n.type)
