// Composite range index: a group's turns written after a vector sequence number (searches
// refresh their in-process vectors with it).
CREATE INDEX turn_group_vseq IF NOT EXISTS FOR (n:Turn) ON (n.group_id, n.vseq)
