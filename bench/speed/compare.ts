import {mkdirSync, readdirSync, rmSync, statSync} from 'node:fs'
import {join} from 'node:path'

import {nodeBaseline} from './cold.js'
import type {Contender} from './contenders.js'
import {newFacts, writeCorpus} from './corpus.js'
import {FactGenerator, type SyntheticFact} from './facts.js'
import {ms, summarize} from './stats.js'
import type {Server} from './warm.js'
import {ZipfQueries} from './zipf.js'

/**
 * mem beside the SQLite FTS5 baseline, on each path that leads to a store of a given size:
 *
 * - `import`: `mem import` of an export into an empty store, then a server (its first search,
 *   warm searches), then a restart;
 * - `import, adds`: the same import, then a server that answers its first search and takes the
 *   live adds (500 by default), warm searches, then a restart;
 * - `adds only`: an empty store given every fact through a server's memory_add, then its first
 *   search, warm searches, then a restart.
 *
 * Each path ends with whole `search --json` processes beside `node -e 0`. The two stores take
 * every step in turn (which goes first alternates), with the same facts and queries, so a busy
 * machine slows both alike; each ratio is mem ÷ SQLite.
 */

/** A target from the issue: a ratio mem ÷ SQLite, or an absolute limit on mem's own figure. */
export type Target = {kind: 'ratio'; limit: number} | {kind: 'mem'; limit: number}

export interface Measure {
  facts: number
  path: string
  what: string
  unit: 'ms' | 'MiB' | '×' | 'MB'
  mem: number
  sqlite: number
  target?: Target
}

export interface CompareOptions {
  warmOps: number
  coldRuns: number
  liveAdds: number
  /** Also run the `adds only` path (every fact through memory_add: long at 100,000 facts). */
  addsOnly: boolean
  /** Mark the issue's targets; off for sizes that only check that every operation completes. */
  targets: boolean
}

export interface Comparison {
  measures: Measure[]
  notes: string[]
}

/** What one store did on one path. */
interface Run {
  ready: number
  first: number
  adds: number[]
  mixed: number[]
  zipf: number[]
  mixedHits: number
  zipfHits: number
  afterRestart: number
  peakMiB: number
  firstCold: number
  cold: number[]
  diskMB: number
}

interface Queries {
  first: string
  restart: string
  mixed: string[]
  zipf: string[]
  cold: string[]
}

interface PathPlan {
  name: string
  /** The two stores' folders, empty until the import, if any. */
  dirs: [string, string]
  /** The export file each store imports first. */
  importFile?: string
  adds: SyntheticFact[]
  /** The first search before the adds (a store that starts with facts) or after them (one that starts empty). */
  searchFirst: boolean
}

type Pair = readonly [Contender, Contender]

/** Runs `step` for both stores, the first of them alternating with `i`; answers in the stores' order. */
async function inTurn<T>(i: number, step: (k: 0 | 1) => Promise<T> | T): Promise<[T, T]> {
  const out: T[] = []
  for (const k of i % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const)) out[k] = await step(k)
  return [out[0]!, out[1]!]
}

interface SearchPayload {
  count: number
  facts: {content: string}[]
}

async function search(server: Server, query: string): Promise<{ms: number; payload: SearchPayload}> {
  const r = await server.call('memory_search', {query})
  return {ms: r.ms, payload: r.result.structuredContent as unknown as SearchPayload}
}

function emptyRun(): Run {
  return {
    ready: 0,
    first: 0,
    adds: [],
    mixed: [],
    zipf: [],
    mixedHits: 0,
    zipfHits: 0,
    afterRestart: 0,
    peakMiB: 0,
    firstCold: 0,
    cold: [],
    diskMB: 0,
  }
}

async function startBoth(pair: Pair, dirs: [string, string], runs: [Run, Run]): Promise<[Server, Server]> {
  return inTurn(0, async (k) => {
    const started = performance.now()
    const server = await pair[k].start(dirs[k])
    runs[k].ready = performance.now() - started
    return server
  })
}

async function warmSearches(servers: [Server, Server], queries: string[], runs: [Run, Run], mix: 'mixed' | 'zipf') {
  for (const [i, query] of queries.entries()) {
    await inTurn(i, async (k) => {
      const r = await search(servers[k], query)
      runs[k][mix].push(r.ms)
      if (r.payload.count > 0) runs[k][mix === 'mixed' ? 'mixedHits' : 'zipfHits']++
    })
  }
}

async function runPath(
  pair: Pair,
  plan: PathPlan,
  queries: Queries,
  opts: CompareOptions,
): Promise<{runs: [Run, Run]; base: number[]}> {
  const runs: [Run, Run] = [emptyRun(), emptyRun()]
  await serve(pair, plan, queries, runs)
  await restart(pair, plan, queries, runs)
  const base = coldSearches(pair, plan, queries, runs, opts.coldRuns)
  for (const k of [0, 1] as const) runs[k].diskMB = folderBytes(plan.dirs[k]) / 1e6
  return {runs, base}
}

/** The path's first server: its first search, the adds, warm searches, a check that the last add is found. */
async function serve(pair: Pair, plan: PathPlan, queries: Queries, runs: [Run, Run]): Promise<void> {
  const servers = await startBoth(pair, plan.dirs, runs)
  const firstSearch = async () =>
    inTurn(0, async (k) => {
      runs[k].first = (await search(servers[k], queries.first)).ms
    })
  if (plan.searchFirst) await firstSearch()
  for (const [i, fact] of plan.adds.entries()) {
    await inTurn(i, async (k) => {
      runs[k].adds.push((await servers[k].call('memory_add', {content: fact.content, tags: fact.tags})).ms)
    })
  }
  if (!plan.searchFirst) await firstSearch()
  await warmSearches(servers, queries.mixed, runs, 'mixed')
  await warmSearches(servers, queries.zipf, runs, 'zipf')
  const last = plan.adds.at(-1)
  if (last) {
    await inTurn(0, async (k) => {
      const found = (await search(servers[k], last.content)).payload.facts.some((f) => f.content === last.content)
      if (!found) throw new Error(`${pair[k].name} did not find its last live add (${plan.name} path)`)
    })
  }
  for (const k of [0, 1] as const) runs[k].peakMiB = servers[k].peakRssMiB()
  await Promise.all(servers.map((s) => s.close()))
}

/** A new server on the same store, and its first search; the path's peak RSS is the larger of its two servers'. */
async function restart(pair: Pair, plan: PathPlan, queries: Queries, runs: [Run, Run]): Promise<void> {
  const servers = await startBoth(pair, plan.dirs, [emptyRun(), emptyRun()])
  await inTurn(0, async (k) => {
    runs[k].afterRestart = (await search(servers[k], queries.restart)).ms
    runs[k].peakMiB = Math.max(runs[k].peakMiB, servers[k].peakRssMiB())
  })
  await Promise.all(servers.map((s) => s.close()))
}

/** Whole `search --json` processes once the servers are gone, beside `node -e 0`; returns the baseline's times. */
function coldSearches(pair: Pair, plan: PathPlan, queries: Queries, runs: [Run, Run], count: number): number[] {
  for (const k of [0, 1] as const) runs[k].firstCold = coldSearch(pair[k], plan.dirs[k], queries.cold[0]!)
  const base: number[] = []
  for (let i = 0; i < count; i++) {
    base.push(nodeBaseline().ms)
    const query = queries.cold[i % queries.cold.length]!
    const order = i % 2 === 0 ? ([0, 1] as const) : ([1, 0] as const)
    for (const k of order) runs[k].cold.push(coldSearch(pair[k], plan.dirs[k], query))
  }
  return base
}

/** One cold `search --json`, its answer checked: a process that prints no JSON answer fails the benchmark. */
function coldSearch(contender: Contender, dir: string, query: string): number {
  const r = contender.coldSearch(dir, query)
  const payload = JSON.parse(r.stdout) as SearchPayload
  if (typeof payload.count !== 'number') throw new Error(`${contender.name} search --json printed no count`)
  return r.ms
}

function folderBytes(dir: string): number {
  return readdirSync(dir, {withFileTypes: true}).reduce((sum, entry) => {
    const path = join(dir, entry.name)
    return sum + (entry.isDirectory() ? folderBytes(path) : statSync(path).size)
  }, 0)
}

/** The measures of one path, in the order the table lists them, with the issue's targets where they apply. */
function measuresOf(facts: number, path: string, runs: [Run, Run], base: number[], opts: CompareOptions): Measure[] {
  const [m, s] = runs
  const onTargetPath = opts.targets && path === PATHS.importAdds
  const ratio = (limit: number, when = onTargetPath): Target | undefined => (when ? {kind: 'ratio', limit} : undefined)
  const p50 = (xs: number[]) => summarize(xs).median
  const p95 = (xs: number[]) => summarize(xs).p95
  const node = p50(base)
  const row = (what: string, unit: Measure['unit'], mem: number, sqlite: number, target?: Target): Measure => ({
    facts,
    path,
    what,
    unit,
    mem,
    sqlite,
    ...(target ? {target} : {}),
  })
  const out = [
    row('server ready (spawn to tools/list)', 'ms', m.ready, s.ready),
    row('first search after the server starts', 'ms', m.first, s.first, ratio(3, opts.targets)),
    row('first search after a restart', 'ms', m.afterRestart, s.afterRestart, ratio(3, opts.targets)),
    row('warm search p50, Zipf mix', 'ms', p50(m.zipf), p50(s.zipf), ratio(1)),
    row('warm search p95, Zipf mix', 'ms', p95(m.zipf), p95(s.zipf), ratio(1)),
  ]
  if (onTargetPath && facts === 100_000)
    out.push(row('warm search p95, Zipf mix: mem alone', 'ms', p95(m.zipf), p95(s.zipf), {kind: 'mem', limit: 10}))
  out.push(
    row('warm search p50, facts.ts mix', 'ms', p50(m.mixed), p50(s.mixed), ratio(1)),
    row('warm search p95, facts.ts mix', 'ms', p95(m.mixed), p95(s.mixed), ratio(1)),
  )
  if (m.adds.length > 0)
    out.push(
      row(`add p50 (${m.adds.length} live adds)`, 'ms', p50(m.adds), p50(s.adds), ratio(2)),
      row(`add p95 (${m.adds.length} live adds)`, 'ms', p95(m.adds), p95(s.adds)),
    )
  out.push(
    row('first cold search --json after the server', 'ms', m.firstCold, s.firstCold),
    row('cold search --json p50', 'ms', p50(m.cold), p50(s.cold), ratio(1.5)),
    row('cold search --json p50 ÷ node -e 0', '×', p50(m.cold) / node, p50(s.cold) / node),
    row('peak RSS of a server', 'MiB', m.peakMiB, s.peakMiB, ratio(1.5, onTargetPath && facts === 100_000)),
    row('store on disk', 'MB', m.diskMB, s.diskMB),
  )
  return out
}

export const PATHS = {imported: 'import', importAdds: 'import, adds', addsOnly: 'adds only'} as const

/**
 * Every path at one size, for both stores: a corpus of `facts` seeded facts written as one
 * export file, which each import path imports into empty stores of its own. `work` is
 * emptied afterwards.
 */
export async function comparePaths(
  work: string,
  facts: number,
  pair: Pair,
  agent: string,
  opts: CompareOptions,
  log: (text: string) => void,
): Promise<Comparison> {
  mkdirSync(work, {recursive: true, mode: 0o700})
  const corpus = writeCorpus(join(work, 'corpus.jsonl'), agent, facts, facts)
  const zipf = new ZipfQueries(
    corpus.facts.map((f) => f.content),
    facts + 2,
  )
  const gen = new FactGenerator(facts + 1)
  const queries: Queries = {
    first: zipf.query(),
    restart: zipf.query(),
    mixed: Array.from({length: opts.warmOps}, () => gen.query()),
    zipf: Array.from({length: opts.warmOps}, () => zipf.query()),
    cold: Array.from({length: Math.max(1, opts.coldRuns)}, () => zipf.query()),
  }
  const adds = newFacts(gen, corpus.facts, opts.liveAdds)
  const measures: Measure[] = []
  const notes: string[] = [
    `${facts.toLocaleString('en')} facts: a vocabulary of ${zipf.vocabulary.toLocaleString('en')} words, the commonest ${zipf
      .top(8)
      .map((w) => `"${w}"`)
      .join(', ')}; a Zipf query: "${queries.zipf[0]}"; a facts.ts query: "${queries.mixed[0]}"`,
  ]

  const dir = (k: 0 | 1, name: string) => join(work, `${k === 0 ? 'mem' : 'sqlite'}-${name}`)
  const folders = (name: string): [string, string] => {
    const dirs: [string, string] = [dir(0, name), dir(1, name)]
    for (const d of dirs) mkdirSync(d, {recursive: true, mode: 0o700})
    return dirs
  }
  // Each import path imports on its own: a copied mem home would not match the file identities its saved index
  // is keyed by, and its first search would rebuild what a user's first search after an import does not.
  const plans: PathPlan[] = [
    {name: PATHS.imported, dirs: folders('a'), adds: [], searchFirst: true, importFile: corpus.file},
    {name: PATHS.importAdds, dirs: folders('b'), adds, searchFirst: true, importFile: corpus.file},
  ]
  if (opts.addsOnly) plans.push({name: PATHS.addsOnly, dirs: folders('c'), adds: corpus.facts, searchFirst: false})

  for (const plan of plans) {
    const started = performance.now()
    if (plan.importFile) {
      const file = plan.importFile
      const took = await inTurn(0, (k) => pair[k].importFile(plan.dirs[k], file).ms)
      measures.push({facts, path: plan.name, what: 'import (whole process)', unit: 'ms', mem: took[0], sqlite: took[1]})
      log(`compare ${facts}, ${plan.name}: imported (mem ${ms(took[0])} ms, SQLite ${ms(took[1])} ms)`)
    }
    const {runs, base} = await runPath(pair, plan, queries, opts)
    measures.push(...measuresOf(facts, plan.name, runs, base, opts))
    const [m, s] = runs
    notes.push(
      `${facts.toLocaleString('en')} facts, ${plan.name}: searches that returned facts, mem ${m.zipfHits}/${m.zipf.length} Zipf and ${m.mixedHits}/${m.mixed.length} facts.ts, SQLite ${s.zipfHits}/${s.zipf.length} and ${s.mixedHits}/${s.mixed.length}; \`node -e 0\` ${ms(summarize(base).median)} ms`,
    )
    log(`compare ${facts}: ${plan.name} done in ${ms(performance.now() - started)} ms`)
    for (const d of plan.dirs) rmSync(d, {recursive: true, force: true})
  }
  rmSync(corpus.file)
  return {measures, notes}
}
