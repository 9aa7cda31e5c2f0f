// What appending a live turn needs, in one round trip: the conversation's last turn (its
// id, index, speaker; an empty list for a new conversation), read backwards from the
// (conversation_id, idx) index (a conversation id is unique to its group), the
// conversation's speakers and completion (an empty list when it is new: the turn's write
// then creates it), and the persons the group already knows (canonical name and aliases),
// to resolve the new turn's mentions.
CALL () {
  MATCH (t:Turn)
  WHERE t.conversation_id = $conversation_id AND t.idx IS NOT NULL
  WITH t ORDER BY t.conversation_id DESC, t.idx DESC LIMIT 1  // both keys: index order
  RETURN collect(t {.id, .idx, .speaker, .session_id}) AS tail
}
CALL () {
  OPTIONAL MATCH (c:Conversation {id: $conversation_id})
  RETURN [x IN collect(c) | x {.speakers, .complete}] AS conversation
}
CALL () {
  MATCH (p:Memory:Person {group_id: $group_id})
  RETURN collect({name: p.name, aliases: coalesce(p.aliases, [])}) AS persons
}
RETURN tail, conversation, persons
