// Every Session has a deterministic, unique id (a hash of group, source and content key).
CREATE CONSTRAINT session_id IF NOT EXISTS FOR (n:Session) REQUIRE n.id IS UNIQUE
