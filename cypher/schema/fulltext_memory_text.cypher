// Fulltext (BM25, English stemming) over memory text. group_key is a single-token copy
// of the group, so a query can be restricted to one group inside Lucene itself.
// Search ranks in process (cogmem/retrieval/lexical.py); this index serves Browser and
// ad-hoc Cypher, so it is updated after commit (eventually consistent): a synchronous
// update cost a live turn's commit ~6 ms.
CREATE FULLTEXT INDEX memory_text IF NOT EXISTS
FOR (m:Memory) ON EACH [m.content, m.name, m.group_key]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english', `fulltext.eventually_consistent`: true}}
