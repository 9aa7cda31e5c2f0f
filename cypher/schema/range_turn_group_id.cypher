// Range index on :Turn(group_id).
CREATE INDEX turn_group_id IF NOT EXISTS FOR (n:Turn) ON (n.group_id)
