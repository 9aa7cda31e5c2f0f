// Drop the turn_text fulltext index: a store from before schema version 6 has it without the
// said_key field; opening such a store recreates it with it (cypher/schema/fulltext_turn_text).
DROP INDEX turn_text IF EXISTS
