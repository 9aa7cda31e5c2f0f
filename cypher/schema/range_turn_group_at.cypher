// Composite range index: a group's turns said by a time (a search as of a date counts and
// scans them through it).
CREATE INDEX turn_group_at IF NOT EXISTS FOR (n:Turn) ON (n.group_id, n.at)
