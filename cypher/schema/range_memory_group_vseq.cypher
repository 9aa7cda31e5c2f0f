// Composite range index: a group's memory records written after a vector sequence number.
CREATE INDEX memory_group_vseq IF NOT EXISTS FOR (n:Memory) ON (n.group_id, n.vseq)
