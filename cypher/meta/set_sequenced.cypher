// Record that every node of the store carries a vector sequence number (vseq): set once
// after admin/stamp_unsequenced, so that opening a store stamps an older one only once.
MATCH (m:CogmemMeta {key: 'embedder'})
SET m.sequenced = true
