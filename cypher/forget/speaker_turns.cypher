// Forgetting (issue 50): per conversation and speaker of the turns $turns (node ids) of group
// $group, that speaker's first turn in that conversation that stays (none: no row). Ingest
// evidences a speaker's Person by their first turn of a conversation; when that turn goes,
// the next one does.
UNWIND $turns AS tid
MATCH (t:Turn {id: tid})
WHERE t.group_id = $group
WITH DISTINCT t.conversation_id AS cid, t.speaker AS speaker
CALL (cid, speaker) {
  MATCH (k:Turn {conversation_id: cid})
  WHERE k.group_id = $group AND k.speaker = speaker AND NOT k.id IN $turns
  RETURN k.id AS first
  ORDER BY k.idx
  LIMIT 1
}
RETURN cid AS conversation_id, speaker, first
