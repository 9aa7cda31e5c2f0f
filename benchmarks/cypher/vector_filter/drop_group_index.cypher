// Drop the benchmark's range index on :Turn(group_id).
DROP INDEX bench_turn_group IF EXISTS
