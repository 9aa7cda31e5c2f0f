// The first statement of a live turn's write transaction: take conversation
// $conversation_id's append lock (one :CogmemMeta node per conversation, write-locked until
// the transaction ends), so appends to one conversation land one at a time whichever
// process writes them. live/append_state, read next under the lock, tells whether the
// conversation is still as the append found it.
MERGE (lock:CogmemMeta {key: 'append:' + $conversation_id})
SET lock.kind = 'append_lock', lock.group_id = $group,
    lock.appends = coalesce(lock.appends, 0) + 1
RETURN lock.appends AS appends
