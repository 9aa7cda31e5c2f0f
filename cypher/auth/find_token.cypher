// The grant of the token whose secret hashes to $key (an index seek on the unique key).
MATCH (t:CogmemMeta {key: $key})
WHERE t.kind = 'token'
RETURN t.token_id AS token_id, t.scope AS group, t.read_only AS read_only, t.name AS name,
       t.created_at AS created_at
