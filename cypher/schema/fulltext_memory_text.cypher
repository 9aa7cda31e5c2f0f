// Fulltext (BM25, English stemming) over memory text. group_key is a single-token copy
// of the group, so a query can be restricted to one group inside Lucene itself; said_key
// the UTC day the record was said (d20250330), so a search as of a date is too.
// Search asks it when its process holds no copy of the group (operators/fulltext_*; the
// copy ranks the same words in process: cogmem/retrieval/lexical.py). Updated after commit
// (eventually consistent: a turn just written reaches it within moments): a synchronous
// update cost a live turn's commit ~6 ms.
CREATE FULLTEXT INDEX memory_text IF NOT EXISTS
FOR (m:Memory) ON EACH [m.content, m.name, m.group_key, m.said_key]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: true}}
