// Mark a conversation as fully written.
MATCH (c:Conversation {id: $id})
SET c.complete = true
RETURN c.id AS id
