// Keep a live turn that is queued and not yet written (its outbox entry, a :CogmemMeta
// node keyed 'pending:<group>:…', held by writer $owner): the client is answered once this
// commits, the turn's own write deletes the entry in its transaction, and a writer whose
// owner stopped beating (live/claim_pending) writes what is left. Nothing is created when
// the turn $turn_id (from the client's id; null without one) is written already or its
// entry exists: a turn sent again. The stored speaker and text come back, to tell a resend
// from another turn under the same id.
OPTIONAL MATCH (t:Turn {id: $turn_id})
OPTIONAL MATCH (old:CogmemMeta {key: $key})
WITH t, old, t IS NOT NULL AS written, old IS NOT NULL AS pending
FOREACH (_ IN CASE WHEN written OR pending THEN [] ELSE [1] END |
  CREATE (:CogmemMeta {key: $key, kind: 'pending_turn', group_id: $group,
                       conversation: $conversation, session: $session, speaker: $speaker,
                       text: $text, at: $at, source_id: $source_id, queued_ns: $queued_ns,
                       owner: $owner}))
RETURN written, pending,
       coalesce(t.speaker, old.speaker) AS speaker, coalesce(t.text, old.text) AS text
