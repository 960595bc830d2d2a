-- mem on PostgreSQL, schema version 1 (docs/team.md, "The schema").
--
-- Each record is kept as the JSON text the file store writes for it (column `record`), so a
-- fact or checkpoint reads back byte for byte as it was stored, whatever it holds. The other
-- columns are what queries select by. Text that is compared or ordered uses the "C" collation:
-- ids and agent names order as mem orders them, byte by byte, whatever the database's locale.

-- One row per agent that was ever written to. Every change to an agent's records locks this
-- row first, so the changes of one agent are made one after another on every server, and bumps
-- `revision`: the agent's change number, which a server's search index follows (ADR 0006).
CREATE TABLE mem_agents (
  agent text COLLATE "C" PRIMARY KEY,
  revision bigint NOT NULL DEFAULT 0,
  -- The last position given to a fact and a checkpoint of the agent: records list in the order they were stored.
  fact_seq bigint NOT NULL DEFAULT 0,
  checkpoint_seq bigint NOT NULL DEFAULT 0,
  -- The largest id of each kind: a new id sorts after it whatever the clock says (src/store/ids.ts).
  last_fact_id text COLLATE "C",
  last_checkpoint_id text COLLATE "C"
);

CREATE TABLE mem_facts (
  agent text COLLATE "C" NOT NULL REFERENCES mem_agents (agent),
  id text COLLATE "C" NOT NULL,
  -- Where the fact comes in the agent's list.
  seq bigint NOT NULL,
  -- The agent's revision of the last change to this row (its writing, or its history mark).
  changed bigint NOT NULL,
  -- Neither superseded nor deleted.
  live boolean NOT NULL,
  -- For a live standalone fact, the SHA-256 of its content as the duplicate guard compares it
  -- (src/store/duplicates.ts); null for the rest.
  dup_key text COLLATE "C",
  record json NOT NULL,
  PRIMARY KEY (agent, id)
);
CREATE UNIQUE INDEX mem_facts_order ON mem_facts (agent, seq);
CREATE INDEX mem_facts_changes ON mem_facts (agent, changed);
CREATE INDEX mem_facts_duplicates ON mem_facts (agent, dup_key) WHERE dup_key IS NOT NULL;

CREATE TABLE mem_checkpoints (
  agent text COLLATE "C" NOT NULL REFERENCES mem_agents (agent),
  id text COLLATE "C" NOT NULL,
  seq bigint NOT NULL,
  record json NOT NULL,
  PRIMARY KEY (agent, id)
);
CREATE UNIQUE INDEX mem_checkpoints_order ON mem_checkpoints (agent, seq);
