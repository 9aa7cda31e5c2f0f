// Forgetting (issue 50): the NEXT links that bridge the gaps the turns $turns (node ids) of
// group $group leave: for each, the nearest turn before it and after it in its conversation
// that stay (by idx), as {prev, next}; a gap at either end of a conversation bridges nothing.
// $partial: the turns whose conversation keeps some turns (a whole conversation has no gap).
UNWIND $partial AS tid
MATCH (t:Turn {id: tid})
WHERE t.group_id = $group
CALL (t) {
  MATCH (p:Turn {conversation_id: t.conversation_id})
  WHERE p.group_id = $group AND p.idx < t.idx AND NOT p.id IN $turns
  RETURN p.id AS prev
  ORDER BY p.idx DESC
  LIMIT 1
}
CALL (t) {
  MATCH (n:Turn {conversation_id: t.conversation_id})
  WHERE n.group_id = $group AND n.idx > t.idx AND NOT n.id IN $turns
  RETURN n.id AS next
  ORDER BY n.idx
  LIMIT 1
}
RETURN DISTINCT prev, next
