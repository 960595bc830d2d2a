/**
 * Speed and scale of mem: `npm run bench` (builds first, then runs this file).
 *
 *   npm run bench                                   1k, 10k and 100k facts, mem beside SQLite FTS5 then mem alone
 *   npm run bench -- --markdown                     the comparison with SQLite as Markdown, for docs/performance.md
 *   npm run bench -- --compare 10000 --sizes none --agents none   only the comparison, at 10k facts
 *   npm run bench -- --compare none                 no comparison (--adds-only 1000,10000: where it runs the adds-only path)
 *   npm run bench -- --sizes none --agents none --compare none --compare-million --warm-ops 50 --cold-runs 5
 *                                                   one store of 1,000,000 facts, both stores, times only
 *   npm run bench -- --sizes 1000,10000             chosen sizes only
 *   npm run bench -- --cold-runs 21 --warm-ops 400  more samples
 *   npm run bench -- --million                      also 1,000,000 facts across 100 agents (much longer)
 *   npm run bench -- --sizes none --million         only the million
 *   npm run bench -- --http                         also HTTP against stdio at 1, 8 and 32 clients (about a minute)
 *   npm run bench -- --sizes none --agents none --http   only that
 *   npm run bench -- --agents 5000                  server RSS across 5,000 agents only (default 5000,50000; none to skip)
 *   npm run bench -- --sizes none --agents none --postgres 10000,100000   PostgreSQL next to the files (docs/team.md)
 *   npm run bench -- --sizes none --agents none --team   1,000,000 facts over 1,000 agents, 3 HTTP servers per store, 32 clients
 *     (--team-agents 200 --team-facts 1000 --team-seconds 20 --team-rounds 2 to choose the size and length)
 *   MEM_BENCH_BIN=/other/checkout/bin/run.js npm run bench   measure another build with this benchmark
 *
 * Every series is measured interleaved with its baseline in the same run, so a busy machine
 * slows both alike: mem against SQLite FTS5 (bench/speed/compare.ts), whole processes against
 * `node -e 0`, MCP tool calls against the protocol's own ping over the same pipe. Facts are
 * synthetic (bench/speed/facts.ts, seeded). Prints the comparison as a table (Markdown with
 * --markdown) and the rest as Markdown tables for docs/performance.md. Data goes to the system
 * temp folder and is removed afterwards unless --keep is given.
 */
import {mkdtempSync, readdirSync, rmSync, statSync} from 'node:fs'
import {cpus, loadavg, tmpdir} from 'node:os'
import {join} from 'node:path'
import {parseArgs} from 'node:util'

import {agentDir} from '../src/store/file/paths.js'
import {roundRobinRss, seedAgents} from './speed/agents.js'
import {mem, nodeBaseline} from './speed/cold.js'
import {comparePaths, type Measure} from './speed/compare.js'
import {comparisonTable, summaryTable, targetSummary} from './speed/compare-report.js'
import {memContender, sqliteContender} from './speed/contenders.js'
import {FactGenerator} from './speed/facts.js'
import {runHttpBench} from './speed/http.js'
import {runMillion} from './speed/million.js'
import {runPostgresBench} from './speed/postgres.js'
import {runTeamBench} from './speed/team.js'
import {seedAgent} from './speed/seed.js'
import {buildSqliteScripts} from './speed/sqlite/build.js'
import {ms, summarize, table, type Row} from './speed/stats.js'
import {Server} from './speed/warm.js'

const {values: opts} = parseArgs({
  options: {
    sizes: {type: 'string', default: '1000,10000,100000'},
    compare: {type: 'string', default: '1000,10000,100000'},
    'adds-only': {type: 'string', default: '1000,10000'},
    'live-adds': {type: 'string', default: '500'},
    'compare-million': {type: 'boolean', default: false},
    markdown: {type: 'boolean', default: false},
    'cold-runs': {type: 'string', default: '15'},
    'warm-ops': {type: 'string', default: '200'},
    million: {type: 'boolean', default: false},
    http: {type: 'boolean', default: false},
    'http-clients': {type: 'string', default: '1,8,32'},
    'http-seconds': {type: 'string', default: '4'},
    agents: {type: 'string', default: '5000,50000'},
    postgres: {type: 'string', default: 'none'},
    team: {type: 'boolean', default: false},
    'team-agents': {type: 'string', default: '1000'},
    'team-facts': {type: 'string', default: '1000'},
    'team-seconds': {type: 'string', default: '20'},
    'team-rounds': {type: 'string', default: '2'},
    keep: {type: 'boolean', default: false},
  },
})
// PostgreSQL is measured as a real server runs, flushing its WAL (the tests' throwaway clusters do
// not), so that it and the files, which fsync every write, are compared at the same durability.
process.env.MEM_TEST_POSTGRES_DURABLE ??= '1'
const list = (value: string): number[] => (value === 'none' ? [] : value.split(',').map(Number))
const sizes = list(opts.sizes)
const agentCounts = list(opts.agents)
const compareSizes = list(opts.compare)
const addsOnlySizes = new Set(list(opts['adds-only']))
const coldRuns = Number(opts['cold-runs'])
const warmOps = Number(opts['warm-ops'])
const AGENT = 'bench'

const rows: Row[] = []
const notes: string[] = []
const homes: string[] = []

function newHome(): string {
  const home = mkdtempSync(join(tmpdir(), 'mem-bench-'))
  homes.push(home)
  return home
}

function log(text: string): void {
  process.stderr.write(`${text}\n`)
}

async function measureSize(facts: number): Promise<void> {
  const home = newHome()
  let started = performance.now()
  seedAgent(home, AGENT, facts, facts)
  log(`${facts} facts seeded in ${ms(performance.now() - started)} ms (${home})`)
  const gen = new FactGenerator(facts + 1)

  // The first search after seeding has no saved index: it builds one and saves it.
  const first = mem(home, AGENT, ['search', '--json', gen.query()])
  notes.push(
    `${facts.toLocaleString('en')} facts: first cold \`mem search\` (no saved index yet: builds and saves it) ${ms(first.ms)} ms`,
  )

  const base: number[] = []
  const search: number[] = []
  const add: number[] = []
  for (let i = 0; i < coldRuns; i++) {
    base.push(nodeBaseline().ms)
    search.push(mem(home, AGENT, ['search', '--json', gen.query()]).ms)
    const f = gen.fact()
    add.push(mem(home, AGENT, ['add', '--json', f.content, ...f.tags.flatMap((t) => ['--tag', t])]).ms)
  }
  const baseline = summarize(base)
  rows.push({
    what: 'cold `mem search --json` (whole process)',
    facts,
    summary: summarize(search),
    baseline,
    baselineName: '`node -e 0`',
    target:
      facts === 10_000 ? {kind: 'ratio', limit: 1.8} : facts === 100_000 ? {kind: 'ratio', limit: 2.5} : undefined,
  })
  rows.push({
    what: 'cold `mem add --json` (whole process)',
    facts,
    summary: summarize(add),
    baseline,
    baselineName: '`node -e 0`',
    target: facts === 10_000 ? {kind: 'ratio', limit: 2.5} : undefined,
  })
  log(`cold runs done at ${facts}`)

  started = performance.now()
  const server = await Server.start(home, AGENT)
  const startMs = performance.now() - started
  const firstSearch = await server.call('memory_search', {query: gen.query()})
  const loadedRss = server.rssMiB()
  notes.push(
    `${facts.toLocaleString('en')} facts: \`mem mcp serve\` ready in ${ms(startMs)} ms; first memory_search (the saved index, brought up to date by segment keys) ${ms(firstSearch.ms)} ms${facts === 100_000 ? ` (target ≤ 100 ms: ${firstSearch.ms <= 100 ? 'ok' : 'MISSED'})` : ''}`,
  )

  // A fact written by another process must be found by the running server.
  const marker = `Ximena keeps the ${gen.codename()}${gen.codename()} runbook`
  mem(home, AGENT, ['add', '--json', marker])
  const seen = await server.call('memory_search', {query: marker})
  const found = (seen.result.structuredContent as {facts: {content: string}[]}).facts.some((f) => f.content === marker)
  if (!found) throw new Error(`the server did not see a fact added by another process at ${facts} facts`)

  // Adds and searches in separate loops, so that neither is charged for the other's garbage collection.
  const addPing: number[] = []
  const wadd: number[] = []
  for (let i = 0; i < warmOps; i++) {
    addPing.push(await server.ping())
    const f = gen.fact()
    wadd.push((await server.call('memory_add', {content: f.content, tags: f.tags})).ms)
  }
  const searchPing: number[] = []
  const wsearch: number[] = []
  let hits = 0
  for (let i = 0; i < warmOps; i++) {
    searchPing.push(await server.ping())
    const s = await server.call('memory_search', {query: gen.query()})
    wsearch.push(s.ms)
    if ((s.result.structuredContent as {count: number}).count > 0) hits++
  }
  const peak = server.peakRssMiB()
  const endRss = server.rssMiB()
  await server.close()
  rows.push({
    what: '`mem mcp serve` warm: memory_search',
    facts,
    summary: summarize(wsearch),
    baseline: summarize(searchPing),
    baselineName: 'MCP ping',
    target: facts === 100_000 ? {kind: 'p95', limit: 10} : undefined,
  })
  rows.push({
    what: '`mem mcp serve` warm: memory_add',
    facts,
    summary: summarize(wadd),
    baseline: summarize(addPing),
    baselineName: 'MCP ping',
    target: facts === 100_000 ? {kind: 'p95', limit: 25} : undefined,
  })
  notes.push(
    `${facts.toLocaleString('en')} facts: \`mem mcp serve\` peak RSS ${peak.toFixed(0)} MiB${facts === 100_000 ? ` (target ≤ 250 MiB: ${peak <= 250 ? 'ok' : 'MISSED'})` : ''}, RSS ${loadedRss.toFixed(0)} MiB after the first search and ${endRss.toFixed(0)} MiB at the end; ${hits}/${warmOps} searches returned facts`,
  )
  log(`warm runs done at ${facts}`)

  notes.push(`${facts.toLocaleString('en')} facts: ${derivedSize(home)}`)
  if (facts >= 10_000) await measureImported(home, facts, gen)
}

/** Bytes of an agent's derived files (cache/) against its facts (facts/). */
function derivedSize(home: string): string {
  const dir = agentDir(home, AGENT)
  const bytes = (folder: string): number => {
    try {
      return readdirSync(join(dir, folder)).reduce((sum, name) => sum + statSync(join(dir, folder, name)).size, 0)
    } catch {
      return 0
    }
  }
  const mb = (n: number) => (n / 1e6).toFixed(1)
  const cache = bytes('cache')
  const facts = bytes('facts')
  return `derived files (cache/) ${mb(cache)} MB beside ${mb(facts)} MB of facts (facts/, with their .bak copies)${cache <= facts ? '' : ': larger than the facts'}`
}

/**
 * The path users take into a large memory: `mem import` of an export into an empty home, then a
 * server's first search (nothing saved yet), and again after a restart (the index saved by then).
 */
async function measureImported(from: string, facts: number, gen: FactGenerator): Promise<void> {
  const home = newHome()
  const file = join(home, 'export.jsonl')
  mem(from, AGENT, ['export', '-o', file])
  const imported = mem(home, AGENT, ['import', '--json', file])
  rmSync(file)
  const paths: string[] = []
  for (const when of ['right after `mem import`', 'after a restart']) {
    const started = performance.now()
    const server = await Server.start(home, AGENT)
    const startMs = performance.now() - started
    const first = await server.call('memory_search', {query: gen.query()})
    const second = await server.call('memory_search', {query: gen.query()})
    const peak = server.peakRssMiB()
    await server.close()
    const ok =
      facts < 100_000
        ? ''
        : ` (targets ≤ 100 ms: ${first.ms <= 100 ? 'ok' : 'MISSED'}; ≤ 250 MiB: ${peak <= 250 ? 'ok' : 'MISSED'})`
    paths.push(
      `${when}: ready in ${ms(startMs)} ms, first memory_search ${ms(first.ms)} ms, second ${ms(second.ms)} ms, peak RSS ${peak.toFixed(0)} MiB${ok}`,
    )
  }
  notes.push(
    `${facts.toLocaleString('en')} facts through \`mem import\` (${ms(imported.ms)} ms): ${paths.join('; ')}; ${derivedSize(home)}`,
  )
  log(`import runs done at ${facts}`)
}

/** Target for a server's resident memory however many agents it serves (issue: 5,000 agents cost 534 MB before). */
const MANY_AGENTS_RSS_MIB = 300

/**
 * One server answering memory_search for many agents of one fact each, round robin: its cache
 * must stay within budget, evicting the least recently used agents. Two rounds at 5,000 agents
 * (every agent warm once, then again after eviction), one at 50,000 (about 2.5 minutes).
 */
async function measureAgents(count: number): Promise<string> {
  const home = newHome()
  let started = performance.now()
  const agents = seedAgents(home, count)
  log(`${count} agents seeded in ${ms(performance.now() - started)} ms (${home})`)
  started = performance.now()
  const rounds = count <= 10_000 ? 2 : 1
  const r = await roundRobinRss(home, agents, rounds)
  const ok = r.peak <= MANY_AGENTS_RSS_MIB ? 'ok' : 'MISSED'
  log(`${count} agents: ${r.calls} searches in ${ms(performance.now() - started)} ms`)
  rmSync(home, {recursive: true, force: true})
  return `${count.toLocaleString('en')} agents of one fact each, ${r.calls.toLocaleString('en')} round-robin memory_search calls (8 in flight) to one \`mem mcp serve\`: peak RSS ${r.peak.toFixed(0)} MiB (target ≤ ${MANY_AGENTS_RSS_MIB} MiB: ${ok}), ${r.end.toFixed(0)} MiB at the end`
}

/**
 * mem beside SQLite FTS5 at each size, on every path to a store of that size (bench/speed/compare.ts),
 * then, with --compare-million, one store of 1,000,000 facts through the import paths, for times only.
 */
async function compareWithSqlite(): Promise<void> {
  const scripts = buildSqliteScripts()
  const pair = [memContender(AGENT), sqliteContender(scripts)] as const
  const measures: Measure[] = []
  const notes: string[] = []
  const load = () =>
    loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')
  const loadBefore = load()
  const options = {warmOps, coldRuns, liveAdds: Number(opts['live-adds'])}
  for (const facts of compareSizes) {
    const r = await comparePaths(
      newHome(),
      facts,
      pair,
      AGENT,
      {...options, addsOnly: addsOnlySizes.has(facts), targets: true},
      log,
    )
    measures.push(...r.measures)
    notes.push(...r.notes)
  }
  const million: Measure[] = []
  if (opts['compare-million']) {
    const r = await comparePaths(newHome(), 1_000_000, pair, AGENT, {...options, addsOnly: false, targets: false}, log)
    million.push(...r.measures)
    notes.push(...r.notes)
  }
  console.log(
    `## mem beside SQLite FTS5 (SQLite ${scripts.version}, WAL, synchronous=FULL; ${cpus().length} × ${cpus()[0]?.model.trim()}; load average ${loadBefore} before, ${load()} after)\n`,
  )
  if (measures.length > 0) {
    console.log(`${summaryTable(measures, opts.markdown)}\n\n${targetSummary(measures)}\n`)
    console.log(`### Every measure\n\n${comparisonTable(measures, opts.markdown)}\n`)
  }
  if (million.length > 0)
    console.log(
      `### One store of 1,000,000 facts: every operation completed\n\n${comparisonTable(million, opts.markdown)}\n`,
    )
  for (const note of notes) console.log(`- ${note}`)
  console.log('')
}

try {
  console.log(`# mem speed, ${new Date().toISOString()}, node ${process.version}, ${process.platform}\n`)
  if (compareSizes.length > 0 || opts['compare-million']) await compareWithSqlite()
  for (const size of sizes) await measureSize(size)
  if (rows.length > 0) {
    console.log(`## mem alone\n\n${table(rows)}`)
    console.log('')
    for (const note of notes) console.log(`- ${note}`)
  }
  if (opts.postgres !== 'none') {
    const pgSizes = opts.postgres.split(',').map(Number)
    const pg = await runPostgresBench(newHome(), AGENT, pgSizes, {warmOps, coldRuns}, log)
    console.log(`\n## PostgreSQL next to the files\n\n${table(pg.rows)}\n`)
    for (const note of pg.notes) console.log(`- ${note}`)
  }
  if (opts.team) {
    const team = {
      agents: Number(opts['team-agents']),
      perAgent: Number(opts['team-facts']),
      seconds: Number(opts['team-seconds']),
      rounds: Number(opts['team-rounds']),
    }
    console.log(`\n${await runTeamBench(newHome(), team, log)}`)
  }
  if (opts.million) console.log(`\n${await runMillion(newHome(), log)}`)
  if (opts.http) {
    const levels = opts['http-clients'].split(',').map(Number)
    console.log(`\n${await runHttpBench(newHome(), {levels, seconds: Number(opts['http-seconds']), facts: 1000}, log)}`)
  }
  if (agentCounts.length > 0) {
    const lines: string[] = []
    for (const count of agentCounts) lines.push(await measureAgents(count))
    console.log(`\n## Many agents, one server\n\n${lines.map((l) => `- ${l}`).join('\n')}`)
  }
} finally {
  if (!opts.keep) for (const home of homes) rmSync(home, {recursive: true, force: true})
  else log(`kept: ${homes.join(' ')}`)
}
