// Wait until the eventually consistent fulltext indexes hold every committed write (a
// search right after an ingest may otherwise miss its last turns for a moment).
CALL db.index.fulltext.awaitEventuallyConsistentIndexRefresh()
