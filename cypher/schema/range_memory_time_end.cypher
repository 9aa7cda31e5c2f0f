// Range index on :Memory(time_end).
CREATE INDEX memory_time_end IF NOT EXISTS FOR (n:Memory) ON (n.time_end)
