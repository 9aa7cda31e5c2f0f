// Every API token (never its secret or hash), optionally only those of group $group.
MATCH (t:CogmemMeta)
WHERE t.kind = 'token' AND ($group IS NULL OR t.scope = $group)
RETURN t.token_id AS token_id, t.scope AS group, t.read_only AS read_only, t.name AS name,
       t.created_at AS created_at
ORDER BY t.created_at, t.token_id
