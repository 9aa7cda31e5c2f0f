// Relationships between memory records. The type comes from a fixed vocabulary listed
// here; a row with any other type writes nothing. e.props become relationship properties.
UNWIND $edges AS e
MATCH (a:Memory {id: e.src})
MATCH (b:Memory {id: e.dst})
FOREACH (_ IN CASE WHEN e.type = 'PARTICIPATED_IN' THEN [1] ELSE [] END |
  MERGE (a)-[x:PARTICIPATED_IN]->(b) SET x += e.props)
FOREACH (_ IN CASE WHEN e.type = 'INVOLVES' THEN [1] ELSE [] END |
  MERGE (a)-[x:INVOLVES]->(b) SET x += e.props)
FOREACH (_ IN CASE WHEN e.type = 'HAS_FACT' THEN [1] ELSE [] END |
  MERGE (a)-[x:HAS_FACT]->(b) SET x += e.props)
FOREACH (_ IN CASE WHEN e.type = 'ABOUT' THEN [1] ELSE [] END |
  MERGE (a)-[x:ABOUT]->(b) SET x += e.props)
FOREACH (_ IN CASE WHEN e.type = 'LIKES' THEN [1] ELSE [] END |
  MERGE (a)-[x:LIKES]->(b) SET x += e.props)
FOREACH (_ IN CASE WHEN e.type = 'DISLIKES' THEN [1] ELSE [] END |
  MERGE (a)-[x:DISLIKES]->(b) SET x += e.props)
FOREACH (_ IN CASE WHEN e.type = 'USES' THEN [1] ELSE [] END |
  MERGE (a)-[x:USES]->(b) SET x += e.props)
FOREACH (_ IN CASE WHEN e.type = 'KNOWS' THEN [1] ELSE [] END |
  MERGE (a)-[x:KNOWS]->(b) SET x += e.props)
FOREACH (_ IN CASE WHEN e.type = 'CLAIMS' THEN [1] ELSE [] END |
  MERGE (a)-[x:CLAIMS]->(b) SET x += e.props)
FOREACH (_ IN CASE WHEN e.type = 'TARGETS' THEN [1] ELSE [] END |
  MERGE (a)-[x:TARGETS]->(b) SET x += e.props)
RETURN count(*) AS edges
