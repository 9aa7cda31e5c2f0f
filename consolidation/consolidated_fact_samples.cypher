// The consolidated Facts of a group with the most supporting events first (for reports).
MATCH (f:Memory:Fact {group_id: $group_id, consolidated: true})
RETURN f.content AS content, f.support_count AS events, f.occasions AS occasions,
       f.status AS status, f.time_start AS time_start, f.time_end AS time_end
ORDER BY f.support_count DESC, f.time_start
LIMIT $limit
