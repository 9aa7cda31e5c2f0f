// Forgetting (issue 50): the state of conversations $conversations (node ids) of group $group
// that a forget plans against: each one's last turn (its id; an empty list when it has none)
// and how many turns it holds. Read before the plan, and again in the forget's transaction
// under each conversation's append lock (live/append_lock): a live turn appended (or a
// forget that landed) in between moves it, and the forget is planned again.
UNWIND $conversations AS cid
CALL (cid) {
  MATCH (t:Turn)
  WHERE t.conversation_id = cid AND t.idx IS NOT NULL
  WITH t ORDER BY t.conversation_id DESC, t.idx DESC LIMIT 1  // both keys: index order
  RETURN collect(t.id) AS tail
}
RETURN cid AS conversation_id, tail,
       COUNT { MATCH (n:Turn {conversation_id: cid}) WHERE n.group_id = $group } AS turns
ORDER BY conversation_id
