// Drop the benchmark's vector index on :Turn(embedding).
DROP INDEX bench_turn_embedding IF EXISTS
