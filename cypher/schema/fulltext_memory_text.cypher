// Fulltext (BM25, English stemming) over memory text. group_key is a single-token copy
// of the group, so a query can be restricted to one group inside Lucene itself.
CREATE FULLTEXT INDEX memory_text IF NOT EXISTS
FOR (m:Memory) ON EACH [m.content, m.name, m.group_key]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
