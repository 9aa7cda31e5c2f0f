// Fulltext (BM25, English stemming) over turns: search_text is the verbatim text prefixed
// with the session date and the speaker; group_key restricts a query to one group.
// Search ranks in process (cogmem/retrieval/lexical.py); this index serves Browser and
// ad-hoc Cypher, so it is updated after commit (eventually consistent): a synchronous
// update cost a live turn's commit ~6 ms.
CREATE FULLTEXT INDEX turn_text IF NOT EXISTS
FOR (t:Turn) ON EACH [t.search_text, t.group_key]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: true}}
