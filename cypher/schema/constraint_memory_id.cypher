// Every Memory has a deterministic, unique id (a hash of group, source and content key).
CREATE CONSTRAINT memory_id IF NOT EXISTS FOR (n:Memory) REQUIRE n.id IS UNIQUE
