// Composite range index: a group's memory records of some types said by a time (a typed
// vector search as of a date counts and scans only those: operators/group_type_size,
// operators/nearest_records_typed_as_of). Entities, which have no `at`, are found through
// (group_id, first_at).
CREATE INDEX memory_group_type_at IF NOT EXISTS FOR (n:Memory) ON (n.group_id, n.type, n.at)
