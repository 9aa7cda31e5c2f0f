// Delete the API token with public id $token_id; returns how many were deleted (0 or 1).
OPTIONAL MATCH (t:CogmemMeta)
WHERE t.kind = 'token' AND t.token_id = $token_id
DELETE t
RETURN count(t) AS revoked
