// Token rows of turns by id (late interaction: the question matched word by word against
// each of the best turns of a search); turns without rows are left out.
MATCH (t:Turn)
WHERE t.id IN $ids AND t.group_id = $group AND t.token_rows IS NOT NULL
RETURN t.id AS id, t.token_rows AS rows, t.token_scales AS scales
