// Forgetting (issue 50): a new vector epoch and sequence number for group $group, in the
// forget's own transaction: every search process drops its in-process copy of the group
// (a deleted node leaves no sequence number to refresh by) and reads it again; the nodes a
// forget changes are stamped with the sequence returned.
MERGE (vs:CogmemMeta {key: 'vectors:' + $group})
SET vs.epoch = coalesce(vs.epoch, 0) + 1, vs.seq = coalesce(vs.seq, 0) + 1
RETURN vs.seq AS vseq, vs.epoch AS epoch
