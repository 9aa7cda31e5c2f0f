// Composite range index: a group's records said by a time (a search as of a date counts and
// scans them through it).
CREATE INDEX memory_group_at IF NOT EXISTS FOR (n:Memory) ON (n.group_id, n.at)
