// Answers 1 when the database is reachable (used to check connectivity).
RETURN 1 AS ok
