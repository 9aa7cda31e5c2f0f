// Range index on :Memory(time_start).
CREATE INDEX memory_time_start IF NOT EXISTS FOR (n:Memory) ON (n.time_start)
