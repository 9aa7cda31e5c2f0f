// Range index on :Session(group_id).
CREATE INDEX session_group_id IF NOT EXISTS FOR (n:Session) ON (n.group_id)
