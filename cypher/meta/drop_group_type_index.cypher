// Drop the (group_id, type) index: how a store from before schema version 2 looks (the
// upgrade test recreates one).
DROP INDEX memory_group_type IF EXISTS
