// Every Conversation has a deterministic, unique id (a hash of group, source and content key).
CREATE CONSTRAINT conversation_id IF NOT EXISTS FOR (n:Conversation) REQUIRE n.id IS UNIQUE
