// Range index on :Conversation(group_id).
CREATE INDEX conversation_group_id IF NOT EXISTS FOR (n:Conversation) ON (n.group_id)
