// Read under the conversation's append lock (live/append_lock), in the write transaction of
// a live turn: the conversation's last turn now (its id; an empty list when it has none) and
// whether turn $turn_id is stored already. The append was planned after the tail it read
// earlier; if another writer appended since, or stored this turn, the write is abandoned
// and planned again.
CALL () {
  MATCH (t:Turn)
  WHERE t.conversation_id = $conversation_id AND t.idx IS NOT NULL
  WITH t ORDER BY t.conversation_id DESC, t.idx DESC LIMIT 1  // both keys: index order
  RETURN collect(t.id) AS tail
}
OPTIONAL MATCH (same:Turn {id: $turn_id})
RETURN tail, same IS NOT NULL AS stored
