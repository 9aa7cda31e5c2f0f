// Every Turn has a deterministic, unique id (a hash of group, source and content key).
CREATE CONSTRAINT turn_id IF NOT EXISTS FOR (n:Turn) REQUIRE n.id IS UNIQUE
