// Keep a live turn that is queued and not yet written (its outbox entry, a :CogmemMeta
// node keyed 'pending:<group>:…'): the client is answered once this commits, the turn's
// own write deletes the entry in its transaction, and a restarted server writes what is
// left (live/pending_turns). Nothing is created when the turn $turn_id (the client's id;
// null without one) is written already or its entry exists: a turn sent again.
OPTIONAL MATCH (t:Turn {id: $turn_id})
OPTIONAL MATCH (old:CogmemMeta {key: $key})
WITH t IS NOT NULL AS written, old IS NOT NULL AS pending
FOREACH (_ IN CASE WHEN written OR pending THEN [] ELSE [1] END |
  CREATE (:CogmemMeta {key: $key, kind: 'pending_turn', group_id: $group,
                       conversation: $conversation, session: $session, speaker: $speaker,
                       text: $text, at: $at, source_id: $source_id, queued_ns: $queued_ns}))
RETURN written, pending
