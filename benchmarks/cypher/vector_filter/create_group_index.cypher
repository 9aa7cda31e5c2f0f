// Range index on :Turn(group_id): what the exact scan seeks through.
CREATE INDEX bench_turn_group IF NOT EXISTS FOR (n:Turn) ON (n.group_id)
