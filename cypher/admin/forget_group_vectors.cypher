// After a group is forgotten: a new vector epoch, so that every search process drops its
// in-process copy of the group's vectors.
MERGE (vs:CogmemMeta {key: 'vectors:' + $group})
SET vs.epoch = coalesce(vs.epoch, 0) + 1, vs.seq = coalesce(vs.seq, 0) + 1
RETURN vs.epoch AS epoch
