// Fulltext (BM25, English stemming) over turns: search_text is the verbatim text prefixed
// with the session date and the speaker; group_key restricts a query to one group.
CREATE FULLTEXT INDEX turn_text IF NOT EXISTS
FOR (t:Turn) ON EACH [t.search_text, t.group_key]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
