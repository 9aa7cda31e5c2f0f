// The Neo4j server's name, version and edition (for the machine line of benchmark results).
CALL dbms.components() YIELD name, versions, edition
RETURN name, versions[0] AS version, edition
