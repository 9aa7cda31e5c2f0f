// Drop the (group_id, type, at) index: how a store from before schema version 5 looks (the
// upgrade test recreates one).
DROP INDEX memory_group_type_at IF EXISTS
