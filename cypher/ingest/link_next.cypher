// Chain consecutive turns of a conversation: (a)-[:NEXT]->(b).
UNWIND $pairs AS p
MATCH (a:Turn {id: p.from})
MATCH (b:Turn {id: p.to})
MERGE (a)-[:NEXT]->(b)
RETURN count(*) AS links
