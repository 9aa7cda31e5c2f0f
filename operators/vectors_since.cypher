// The vectors of group $group's turns and memory records written after sequence $seq (all
// of them when $seq is null), with what a search filters them by.
CALL () {
  MATCH (n:Turn)
  WHERE n.group_id = $group AND ($seq IS NULL OR n.vseq > $seq) AND n.embedding IS NOT NULL
  RETURN n.id AS id, 'Turn' AS type, n.embedding AS embedding
  UNION ALL
  MATCH (n:Memory)
  WHERE n.group_id = $group AND ($seq IS NULL OR n.vseq > $seq) AND n.embedding IS NOT NULL
  RETURN n.id AS id, n.type AS type, n.embedding AS embedding
}
RETURN id, type, embedding
