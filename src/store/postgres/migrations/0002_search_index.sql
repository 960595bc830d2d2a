-- Schema version 2: each agent's search index, saved, so a process that has none warm (a
-- one-shot `mem search`, a server's first search of an agent) loads it and reads only the
-- changes since, instead of every live fact (ADR 0006). Derived data: deleting a row costs the
-- next search a full load, nothing else.
CREATE TABLE mem_search_index (
  agent text COLLATE "C" PRIMARY KEY REFERENCES mem_agents (agent),
  -- The agent's revision the index reflects: the facts changed after it are applied on load.
  revision bigint NOT NULL,
  -- Which build of the ranking code made it; another build's index is never loaded.
  signature text NOT NULL,
  data bytea NOT NULL
);
