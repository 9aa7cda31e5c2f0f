// The group's vector sequence (bumped by every write that adds vectors) and epoch (bumped
// when the group is forgotten): a search compares them with its in-process copy.
OPTIONAL MATCH (vs:CogmemMeta {key: 'vectors:' + $group})
RETURN coalesce(vs.seq, 0) AS seq, coalesce(vs.epoch, 0) AS epoch
