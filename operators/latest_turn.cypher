// When group $group's last turn was said (as of $as_of when not null): the "now" a question's
// own time words ("in May", "last summer") are read against.
MATCH (t:Turn)
WHERE t.group_id = $group AND t.at IS NOT NULL
  AND ($as_of IS NULL OR t.at <= $as_of)
RETURN max(t.at) AS at
