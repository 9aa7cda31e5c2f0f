// Forgetting (issue 50): whether the artifact-link job has written edges in group $group (then
// a forget links the records of the conversations it touched again).
RETURN EXISTS {
  MATCH (a:Memory {group_id: $group})-[x:REFERENCES|CAUSES]->(:Memory)
  WHERE x.job = 'link'
} AS linked
