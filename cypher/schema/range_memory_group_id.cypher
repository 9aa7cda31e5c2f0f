// Range index on :Memory(group_id).
CREATE INDEX memory_group_id IF NOT EXISTS FOR (n:Memory) ON (n.group_id)
