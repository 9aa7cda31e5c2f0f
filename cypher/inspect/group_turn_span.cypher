// A group's turns: how many, the first and last time said, and when the newest was written.
MATCH (t:Turn {group_id: $group})
RETURN count(t) AS turns, min(t.at) AS first_said, max(t.at) AS last_said,
       max(t.created_at) AS last_ingest
