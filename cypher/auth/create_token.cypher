// Store a new API token: only the sha256 of its secret ($key = 'token:' + hex digest) is kept.
// Tokens are store-wide settings (:CogmemMeta, unique key), scoped to one group by `scope`.
CREATE (t:CogmemMeta {
  key: $key, kind: 'token', token_id: $token_id, scope: $group, read_only: $read_only,
  name: $name, created_at: datetime()
})
RETURN t.token_id AS token_id, t.scope AS group, t.read_only AS read_only, t.name AS name,
       t.created_at AS created_at
