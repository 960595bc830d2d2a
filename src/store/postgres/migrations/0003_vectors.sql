-- Schema version 3: the vectors of meaning of each agent's facts, for ranking by meaning as
-- well as words (docs/search.md, "Meaning (optional)"). Derived data, made by the servers of a team with
-- meaning on: deleting rows costs the facts a new embedding, nothing else. Rows are only ever
-- added; `seq` tells a server which it has read.
CREATE TABLE mem_vectors (
  seq bigserial PRIMARY KEY,
  agent text COLLATE "C" NOT NULL REFERENCES mem_agents (agent),
  -- Which model made it (backend, model and version); another model's vectors are never compared.
  embedder text NOT NULL,
  fact_id text COLLATE "C" NOT NULL,
  -- A digest of the content embedded: tells a vector made from other content than its fact's.
  digest text NOT NULL,
  -- int8 components, then the float32 scale that makes them a unit vector (little-endian).
  vector bytea NOT NULL
);
CREATE INDEX mem_vectors_by_agent ON mem_vectors (agent, embedder, seq);
