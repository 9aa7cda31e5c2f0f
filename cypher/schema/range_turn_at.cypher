// Range index on :Turn(at).
CREATE INDEX turn_at IF NOT EXISTS FOR (n:Turn) ON (n.at)
