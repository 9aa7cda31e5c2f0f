// Wait (up to $seconds) until every index is online.
CALL db.awaitIndexes($seconds)
