// Composite range index: a group's entities (persons, concepts) first said by a time (they
// have no `at` of their own; a search as of a date reads them through it).
CREATE INDEX memory_group_first_at IF NOT EXISTS FOR (n:Memory) ON (n.group_id, n.first_at)
