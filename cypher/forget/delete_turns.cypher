// Forgetting (issue 50): delete the turns of group $group whose ids are in $ids, with every
// relationship they have (HAS_TURN, NEXT, EVIDENCED_BY; vectors and fulltext entries too).
UNWIND $ids AS tid
MATCH (t:Turn {id: tid})
WHERE t.group_id = $group
DETACH DELETE t
RETURN count(*) AS deleted
