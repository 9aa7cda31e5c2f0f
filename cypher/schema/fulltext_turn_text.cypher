// Fulltext (BM25, English stemming) over turns: search_text is the verbatim text prefixed
// with the session date and the speaker; group_key restricts a query to one group, and
// said_key (the UTC day the turn was said, d20250330) one as of a date.
// Search asks it when its process holds no copy of the group (operators/fulltext_*; the
// copy ranks the same words in process: cogmem/retrieval/lexical.py). Updated after commit
// (eventually consistent: a turn just written reaches it within moments): a synchronous
// update cost a live turn's commit ~6 ms.
CREATE FULLTEXT INDEX turn_text IF NOT EXISTS
FOR (t:Turn) ON EACH [t.search_text, t.group_key, t.said_key]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: true}}
