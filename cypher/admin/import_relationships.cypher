// Import: relationships from $rels rows {src, dst, type, props} between nodes of group
// $group, found by id. The type comes from the fixed vocabulary below; a row with any
// other type, or whose ends are not both in the group, writes nothing (the count tells).
UNWIND $rels AS e
CALL (e) {
  MATCH (a:Memory {id: e.src}) RETURN a
  UNION
  MATCH (a:Turn {id: e.src}) RETURN a
  UNION
  MATCH (a:Session {id: e.src}) RETURN a
  UNION
  MATCH (a:Conversation {id: e.src}) RETURN a
}
CALL (e) {
  MATCH (b:Memory {id: e.dst}) RETURN b
  UNION
  MATCH (b:Turn {id: e.dst}) RETURN b
  UNION
  MATCH (b:Session {id: e.dst}) RETURN b
  UNION
  MATCH (b:Conversation {id: e.dst}) RETURN b
}
WITH a, b, e
WHERE a.group_id = $group AND b.group_id = $group
FOREACH (_ IN CASE WHEN e.type = 'HAS_SESSION' THEN [1] ELSE [] END |
  MERGE (a)-[x:HAS_SESSION]->(b) SET x = e.props)
FOREACH (_ IN CASE WHEN e.type = 'HAS_TURN' THEN [1] ELSE [] END |
  MERGE (a)-[x:HAS_TURN]->(b) SET x = e.props)
FOREACH (_ IN CASE WHEN e.type = 'NEXT' THEN [1] ELSE [] END |
  MERGE (a)-[x:NEXT]->(b) SET x = e.props)
FOREACH (_ IN CASE WHEN e.type = 'EVIDENCED_BY' THEN [1] ELSE [] END |
  MERGE (a)-[x:EVIDENCED_BY]->(b) SET x = e.props)
FOREACH (_ IN CASE WHEN e.type = 'PARTICIPATED_IN' THEN [1] ELSE [] END |
  MERGE (a)-[x:PARTICIPATED_IN]->(b) SET x = e.props)
FOREACH (_ IN CASE WHEN e.type = 'INVOLVES' THEN [1] ELSE [] END |
  MERGE (a)-[x:INVOLVES]->(b) SET x = e.props)
FOREACH (_ IN CASE WHEN e.type = 'HAS_FACT' THEN [1] ELSE [] END |
  MERGE (a)-[x:HAS_FACT]->(b) SET x = e.props)
FOREACH (_ IN CASE WHEN e.type = 'ABOUT' THEN [1] ELSE [] END |
  MERGE (a)-[x:ABOUT]->(b) SET x = e.props)
FOREACH (_ IN CASE WHEN e.type = 'LIKES' THEN [1] ELSE [] END |
  MERGE (a)-[x:LIKES]->(b) SET x = e.props)
FOREACH (_ IN CASE WHEN e.type = 'DISLIKES' THEN [1] ELSE [] END |
  MERGE (a)-[x:DISLIKES]->(b) SET x = e.props)
FOREACH (_ IN CASE WHEN e.type = 'USES' THEN [1] ELSE [] END |
  MERGE (a)-[x:USES]->(b) SET x = e.props)
FOREACH (_ IN CASE WHEN e.type = 'KNOWS' THEN [1] ELSE [] END |
  MERGE (a)-[x:KNOWS]->(b) SET x = e.props)
FOREACH (_ IN CASE WHEN e.type = 'CLAIMS' THEN [1] ELSE [] END |
  MERGE (a)-[x:CLAIMS]->(b) SET x = e.props)
FOREACH (_ IN CASE WHEN e.type = 'TARGETS' THEN [1] ELSE [] END |
  MERGE (a)-[x:TARGETS]->(b) SET x = e.props)
FOREACH (_ IN CASE WHEN e.type = 'SUPERSEDES' THEN [1] ELSE [] END |
  MERGE (a)-[x:SUPERSEDES]->(b) SET x = e.props)
FOREACH (_ IN CASE WHEN e.type = 'CONFLICTS_WITH' THEN [1] ELSE [] END |
  MERGE (a)-[x:CONFLICTS_WITH]->(b) SET x = e.props)
FOREACH (_ IN CASE WHEN e.type = 'SUPPORTED_BY' THEN [1] ELSE [] END |
  MERGE (a)-[x:SUPPORTED_BY]->(b) SET x = e.props)
FOREACH (_ IN CASE WHEN e.type = 'REFERENCES' THEN [1] ELSE [] END |
  MERGE (a)-[x:REFERENCES]->(b) SET x = e.props)
FOREACH (_ IN CASE WHEN e.type = 'CAUSES' THEN [1] ELSE [] END |
  MERGE (a)-[x:CAUSES]->(b) SET x = e.props)
RETURN count(CASE WHEN e.type IN ['HAS_SESSION', 'HAS_TURN', 'NEXT', 'EVIDENCED_BY',
  'PARTICIPATED_IN', 'INVOLVES', 'HAS_FACT', 'ABOUT', 'LIKES', 'DISLIKES', 'USES', 'KNOWS',
  'CLAIMS', 'TARGETS', 'SUPERSEDES', 'CONFLICTS_WITH', 'SUPPORTED_BY', 'REFERENCES',
  'CAUSES'] THEN 1 END) AS relationships
