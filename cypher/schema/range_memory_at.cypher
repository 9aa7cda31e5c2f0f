// Range index on :Memory(at).
CREATE INDEX memory_at IF NOT EXISTS FOR (n:Memory) ON (n.at)
