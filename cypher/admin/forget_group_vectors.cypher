// After a group is forgotten or imported into: a new vector epoch, so that every search
// process drops its in-process copy of the group's vectors and relationships.
MERGE (vs:CogmemMeta {key: 'vectors:' + $group})
SET vs.epoch = coalesce(vs.epoch, 0) + 1, vs.seq = coalesce(vs.seq, 0) + 1
RETURN vs.epoch AS epoch
