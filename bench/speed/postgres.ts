import {FileStore} from '../../src/store/file/file-store.js'
import {PostgresStore} from '../../src/store/postgres/postgres-store.js'
import {freshDatabase} from '../../test/helpers/postgres.js'
import {timeProcess, BIN, memEnv} from './cold.js'
import {FactGenerator} from './facts.js'
import {seedAgent} from './seed.js'
import {ms, summarize, type Row} from './stats.js'
import {Server} from './warm.js'

/**
 * The PostgreSQL store next to the files, same facts, same machine, same run: one agent seeded
 * into a home, copied into a fresh database (test/helpers/postgres.ts: MEM_TEST_POSTGRES, else a
 * throwaway cluster on a unix socket), then each series measured on both, interleaved, with the
 * file store as the baseline of each row.
 */
export async function runPostgresBench(
  home: string,
  agent: string,
  sizes: number[],
  options: {warmOps: number; coldRuns: number},
  log: (text: string) => void,
): Promise<{rows: Row[]; notes: string[]}> {
  const rows: Row[] = []
  const notes: string[] = []
  for (const facts of sizes) {
    const dir = `${home}/pg-${facts}`
    seedAgent(dir, agent, facts, facts)
    const url = await freshDatabase()
    let started = performance.now()
    const db = await PostgresStore.open(url)
    await db.importRecords(agent, {facts: await new FileStore(dir).listFacts(agent), checkpoints: []})
    await db.close()
    log(`${facts} facts copied into PostgreSQL in ${ms(performance.now() - started)} ms`)
    const pgEnv = {MEM_STORE: url}
    const gen = new FactGenerator(facts + 7)

    // Cold: whole processes, one search and one add each, alternating stores.
    const cold = {
      files: {search: [] as number[], add: [] as number[]},
      pg: {search: [] as number[], add: [] as number[]},
    }
    for (let i = 0; i < options.coldRuns; i++) {
      const q = gen.query()
      const f = gen.fact()
      cold.files.search.push(timeProcess([BIN, 'search', '--json', q], memEnv(dir, agent)).ms)
      cold.pg.search.push(timeProcess([BIN, 'search', '--json', q], {...memEnv(dir, agent), ...pgEnv}).ms)
      cold.files.add.push(timeProcess([BIN, 'add', '--json', '--allow-duplicate', f.content], memEnv(dir, agent)).ms)
      cold.pg.add.push(
        timeProcess([BIN, 'add', '--json', '--allow-duplicate', f.content], {...memEnv(dir, agent), ...pgEnv}).ms,
      )
    }
    rows.push(
      pgRow('cold `mem search --json` (whole process)', facts, cold.pg.search, cold.files.search),
      pgRow('cold `mem add --json` (whole process)', facts, cold.pg.add, cold.files.add),
    )

    // Warm: one server per store, calls alternating between them.
    started = performance.now()
    const files = await Server.start(dir, agent)
    const pg = await Server.start(dir, agent, pgEnv)
    const q = gen.query()
    const firstFiles = (await files.call('memory_search', {query: q})).ms
    const firstPg = (await pg.call('memory_search', {query: q})).ms
    notes.push(
      `${facts.toLocaleString('en')} facts: a server's first memory_search ${ms(firstPg)} ms on PostgreSQL, ${ms(firstFiles)} ms on the files (both read their saved index, which the cold searches above saved)`,
    )
    const warm = {
      files: {search: [] as number[], add: [] as number[]},
      pg: {search: [] as number[], add: [] as number[]},
    }
    for (let i = 0; i < options.warmOps; i++) {
      const f = gen.fact()
      warm.files.add.push((await files.call('memory_add', {content: f.content, tags: f.tags})).ms)
      warm.pg.add.push((await pg.call('memory_add', {content: f.content, tags: f.tags})).ms)
    }
    for (let i = 0; i < options.warmOps; i++) {
      const query = gen.query()
      warm.files.search.push((await files.call('memory_search', {query})).ms)
      warm.pg.search.push((await pg.call('memory_search', {query})).ms)
    }
    notes.push(
      `${facts.toLocaleString('en')} facts: peak RSS ${pg.peakRssMiB().toFixed(0)} MiB for the PostgreSQL server, ${files.peakRssMiB().toFixed(0)} MiB for the files' server`,
    )
    await Promise.all([files.close(), pg.close()])
    rows.push(
      pgRow(
        '`mem mcp serve` warm: memory_search',
        facts,
        warm.pg.search,
        warm.files.search,
        facts >= 100_000 ? 10 : undefined,
      ),
      pgRow('`mem mcp serve` warm: memory_add', facts, warm.pg.add, warm.files.add, facts >= 100_000 ? 25 : undefined),
    )
    log(`PostgreSQL runs done at ${facts} (${ms(performance.now() - started)} ms)`)
  }
  return {rows, notes}
}

function pgRow(what: string, facts: number, pg: number[], files: number[], p95?: number): Row {
  return {
    what: `PostgreSQL: ${what}`,
    facts,
    summary: summarize(pg),
    baseline: summarize(files),
    baselineName: 'the files',
    target: p95 === undefined ? undefined : {kind: 'p95', limit: p95},
  }
}
