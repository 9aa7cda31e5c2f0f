// Composite range index: turns of a conversation by position (Ground's neighbours).
CREATE INDEX turn_conversation_idx IF NOT EXISTS FOR (n:Turn) ON (n.conversation_id, n.idx)
