// After a store-wide reindex: a new vector epoch for every group, so that every search
// process drops its in-process copy of the old vectors and reads the new ones.
MATCH (vs:CogmemMeta)
WHERE vs.key STARTS WITH 'vectors:'
SET vs.epoch = coalesce(vs.epoch, 0) + 1, vs.seq = coalesce(vs.seq, 0) + 1
RETURN count(vs) AS groups
