/**
 * The baseline the benchmark sets beside mem: the store an engineer would write instead, on
 * SQLite FTS5 through better-sqlite3. Benchmark code only, never part of mem.
 *
 * One database file per store (one agent), a table of facts and an external-content FTS5
 * index over their text kept by a trigger, ranked by bm25 with the Porter stemmer. Durability
 * matches mem's: WAL with synchronous=FULL, so each add's commit fsyncs the WAL before the
 * answer, as mem fsyncs its journal before it answers (NORMAL would fsync only at checkpoints,
 * and an acknowledged add could be lost to a power cut: an add measured that way would be
 * measured without the work that makes it durable).
 */
import {randomUUID} from 'node:crypto'

import Database from 'better-sqlite3'

import {ENGLISH_STOPWORDS} from '../../../src/search/stopwords.js'

export const AGENT = 'bench'

const SCHEMA = `
CREATE TABLE IF NOT EXISTS facts (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  content TEXT NOT NULL,
  norm TEXT NOT NULL,
  tags TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS facts_norm ON facts(norm);
CREATE VIRTUAL TABLE IF NOT EXISTS facts_fts USING fts5(
  content, content='facts', content_rowid='rowid', tokenize='porter unicode61'
);
CREATE TRIGGER IF NOT EXISTS facts_added AFTER INSERT ON facts BEGIN
  INSERT INTO facts_fts(rowid, content) VALUES (new.rowid, new.content);
END;
`

export interface Hit {
  id: string
  content: string
  tags: string[]
  created_at: string
  score: number
}

export interface NewFact {
  id?: string
  content: string
  tags: string[]
  created_at?: string
}

interface Row {
  id: string
  content: string
  tags: string
  created_at: string
  score: number
}

/** The duplicate guard's key, as mem's: the same words ignoring case and spacing. */
function normalize(content: string): string {
  return content.trim().replace(/\s+/g, ' ').toLowerCase()
}

/**
 * A question in natural words as an FTS5 query: any of its words (mem's search too returns
 * facts that share a word with the question), each quoted so that no word is read as an
 * operator, less the stopwords mem leaves out of its own queries. Without that, a query with
 * "the" in it would score nearly every fact, work mem does not do, and the comparison would
 * set mem beside a baseline slowed by a choice no one would keep. Undefined when the question
 * has no other word (mem then finds nothing either).
 */
export function matchExpression(query: string): string | undefined {
  const words = (query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !ENGLISH_STOPWORDS.has(w))
  return words.length > 0 ? words.map((w) => `"${w}"`).join(' OR ') : undefined
}

export class SqliteFacts {
  private readonly db: Database.Database
  private readonly searchStatement: Database.Statement<[string, number], Row>
  private readonly findStatement: Database.Statement<[string], {id: string}>
  private readonly insertStatement: Database.Statement<[string, string, string, string, string]>

  constructor(file: string) {
    this.db = new Database(file)
    this.db.pragma('journal_mode = WAL')
    this.db.pragma('synchronous = FULL')
    this.db.pragma('busy_timeout = 5000')
    this.db.exec(SCHEMA)
    this.searchStatement = this.db.prepare(
      `SELECT f.id, f.content, f.tags, f.created_at, -bm25(facts_fts) AS score
         FROM facts_fts JOIN facts f ON f.rowid = facts_fts.rowid
        WHERE facts_fts MATCH ? ORDER BY rank LIMIT ?`,
    )
    this.findStatement = this.db.prepare('SELECT id FROM facts WHERE norm = ? LIMIT 1')
    this.insertStatement = this.db.prepare(
      'INSERT OR IGNORE INTO facts (id, content, norm, tags, created_at) VALUES (?, ?, ?, ?, ?)',
    )
  }

  search(query: string, limit: number): Hit[] {
    const match = matchExpression(query)
    if (match === undefined) return []
    return this.searchStatement.all(match, limit).map((r) => ({...r, tags: JSON.parse(r.tags) as string[]}))
  }

  /** Stores one fact in its own transaction, unless a fact already says the same. */
  add(fact: NewFact): {id: string; duplicate: boolean} {
    return this.db.transaction(() => {
      const norm = normalize(fact.content)
      const existing = this.findStatement.get(norm)
      if (existing) return {id: existing.id, duplicate: true}
      return {id: this.insert(fact, norm).id, duplicate: false}
    })()
  }

  /** Stores many facts in one transaction (an import); ids already present are skipped. */
  addAll(facts: Iterable<NewFact>): number {
    return this.db.transaction(() => {
      let added = 0
      for (const fact of facts) added += this.insert(fact, normalize(fact.content)).changes
      return added
    })()
  }

  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM facts').get() as {n: number}).n
  }

  close(): void {
    this.db.close()
  }

  private insert(fact: NewFact, norm: string): {id: string; changes: number} {
    const id = fact.id ?? randomUUID()
    const created = fact.created_at ?? new Date().toISOString()
    return {id, changes: this.insertStatement.run(id, fact.content, norm, JSON.stringify(fact.tags), created).changes}
  }
}
