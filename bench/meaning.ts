/**
 * What meaning costs (docs/search.md, "Meaning"): `npm run bench:meaning`, or
 * `node --import tsx bench/meaning.ts [--sizes 1000,10000|none] [--large 100000|0] [--markdown]`.
 * Each figure is set beside the same measure with meaning off, in the same run:
 *
 * - the model shipped with mem: time to its first vector, RSS it adds, time per short fact and
 *   per long turn;
 * - per size, facts imported with `mem import` then embedded by `mem embed` (throughput, and the
 *   time until all have vectors), then through one MCP server each: warm search p50 / p95
 *   (Zipf queries), add p50 (with the background embedding running), the first search after
 *   the server starts, and its RSS; a cold `mem search --json`;
 * - at `--large` facts, vectors from an OpenAI-compatible endpoint this script serves (a
 *   hashed bag of words of 512 numbers, as fast as an endpoint gets), since the model would take
 *   20 minutes to embed them: what the vector index costs a search at that size, beside the model.
 */
import {spawn} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {LocalEmbedder} from '../src/meaning/local-embedder.js'
import {startEmbeddingServer, type EmbeddingServer} from '../test/helpers/embedding-server.js'
import {BIN, memEnv} from './speed/cold.js'
import {writeCorpus} from './speed/corpus.js'
import {FactGenerator} from './speed/facts.js'
import {seedAgent} from './speed/seed.js'
import {grid, ms, summarize} from './speed/stats.js'
import {Server} from './speed/warm.js'
import {ZipfQueries} from './speed/zipf.js'

const AGENT = 'bench'
const argv = process.argv.slice(2)
const option = (name: string, fallback: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1]! : fallback)
const SIZES = option('--sizes', '1000,10000')
  .split(',')
  .map(Number)
  .filter((n) => n > 0)
const LARGE = Number(option('--large', '100000'))
const MARKDOWN = argv.includes('--markdown')
const QUERIES = 200
const ADDS = 100

/** One whole process, timed, without blocking this one: the endpoint answers from here. */
function timed(args: string[], env: NodeJS.ProcessEnv): Promise<{ms: number; stdout: string}> {
  return new Promise((done, fail) => {
    const started = process.hrtime.bigint()
    const child = spawn(process.execPath, [BIN, ...args], {env})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    child.on('error', fail)
    child.on('close', (code) => {
      const took = Number(process.hrtime.bigint() - started) / 1e6
      if (code === 0) done({ms: took, stdout})
      else fail(new Error(`mem ${args.join(' ')} exited ${code}: ${stderr}`))
    })
    child.stdin.end()
  })
}

async function modelCost(): Promise<string[][]> {
  const gen = new FactGenerator(11)
  const short = Array.from({length: 64}, () => gen.fact().content)
  const long = Array.from({length: 32}, () => Array.from({length: 6}, () => gen.fact().content).join(' '))
  const before = process.memoryUsage().rss
  const model = new LocalEmbedder()
  let started = performance.now()
  await model.embed(['the first vector'])
  const first = performance.now() - started
  started = performance.now()
  await model.embed(short)
  const perShort = (performance.now() - started) / short.length
  started = performance.now()
  await model.embed(long)
  const perLong = (performance.now() - started) / long.length
  const added = (process.memoryUsage().rss - before) / 2 ** 20
  await model.close()
  const words = (texts: string[]) => Math.round(texts.reduce((n, t) => n + t.split(' ').length, 0) / texts.length)
  return [
    ['first vector, from nothing loaded', `${ms(first)} ms`],
    [
      `per short fact (about ${words(short)} words, batches of 16)`,
      `${ms(perShort)} ms (${Math.round(1000 / perShort)}/s)`,
    ],
    [`per long turn (about ${words(long)} words)`, `${ms(perLong)} ms (${Math.round(1000 / perLong)}/s)`],
    ['RSS the model adds (its thread included)', `${Math.round(added)} MiB`],
  ]
}

interface PathFigures {
  warm: {p50: number; p95: number}
  add: number
  first: number
  firstUsed: boolean | undefined
  rss: number
  cold: number
}

/** One server on `home` with meaning as `env` says: searches, adds, its RSS; then a cold CLI search. */
async function throughServer(home: string, env: Record<string, string>, queries: string[]): Promise<PathFigures> {
  const server = await Server.start(home, AGENT, env)
  try {
    const first = await server.call('memory_search', {query: queries[0]!})
    const firstUsed = (first.result.structuredContent as {meaning?: {used: boolean}}).meaning?.used
    // Meaning on: the model loads and the facts' vectors are read; wait for both before timing.
    for (let i = 0; env.MEM_MEANING === 'on' && i < 600; i++) {
      const r = await server.call('memory_search', {query: queries[1]!})
      if ((r.result.structuredContent as {meaning?: {used: boolean}}).meaning?.used) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    for (const query of queries.slice(0, 20)) await server.call('memory_search', {query})
    const searches: number[] = []
    for (const query of queries) searches.push((await server.call('memory_search', {query})).ms)
    const gen = new FactGenerator(99)
    const adds: number[] = []
    for (let i = 0; i < ADDS; i++)
      adds.push((await server.call('memory_add', {content: `${gen.fact().content} (${gen.codename()}${i})`})).ms)
    const warm = summarize(searches)
    const rss = server.rssMiB()
    const cold = await timed(['search', '--json', queries[2]!], {...memEnv(home, AGENT), ...env})
    return {
      warm: {p50: warm.median, p95: warm.p95},
      add: summarize(adds).median,
      first: first.ms,
      firstUsed,
      rss,
      cold: cold.ms,
    }
  } finally {
    await server.close()
  }
}

function rowsFor(label: string, off: PathFigures, on: PathFigures): string[][] {
  const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`
  return [
    [
      `${label}: warm search p50 / p95`,
      `${ms(off.warm.p50)} / ${ms(off.warm.p95)}`,
      `${ms(on.warm.p50)} / ${ms(on.warm.p95)}`,
      `${ratio(on.warm.p50, off.warm.p50)} / ${ratio(on.warm.p95, off.warm.p95)}`,
    ],
    [`${label}: add p50`, ms(off.add), ms(on.add), ratio(on.add, off.add)],
    [
      `${label}: first search after start (meaning used: ${on.firstUsed})`,
      ms(off.first),
      ms(on.first),
      ratio(on.first, off.first),
    ],
    [`${label}: server RSS after the adds, MiB`, off.rss.toFixed(0), on.rss.toFixed(0), ratio(on.rss, off.rss)],
    [`${label}: cold mem search --json`, ms(off.cold), ms(on.cold), ratio(on.cold, off.cold)],
  ]
}

async function withModel(size: number): Promise<string[][]> {
  const home = mkdtempSync(join(tmpdir(), 'mem-bench-meaning-'))
  try {
    const corpus = writeCorpus(join(home, 'corpus.jsonl'), AGENT, size, 7)
    await timed(['import', '--json', corpus.file], memEnv(home, AGENT))
    const embed = await timed(['embed', '--json'], {...memEnv(home, AGENT), MEM_MEANING: 'on'})
    const queries = new ZipfQueries(
      corpus.facts.map((f) => f.content),
      5,
    )
    const list = Array.from({length: QUERIES}, () => queries.query())
    const off = await throughServer(home, {MEM_MEANING: 'off'}, list)
    const on = await throughServer(home, {MEM_MEANING: 'on'}, list)
    return [
      [
        `${size} facts: mem embed after mem import`,
        '',
        `${(embed.ms / 1000).toFixed(1)} s (${Math.round(size / (embed.ms / 1000))} facts/s)`,
        '',
      ],
      ...rowsFor(`${size} facts, model shipped`, off, on),
    ]
  } finally {
    rmSync(home, {recursive: true, force: true})
  }
}

async function withEndpoint(size: number, server: EmbeddingServer): Promise<string[][]> {
  const home = mkdtempSync(join(tmpdir(), 'mem-bench-meaning-'))
  try {
    seedAgent(home, AGENT, size, 7)
    const env = {...memEnv(home, AGENT)}
    await timed(['meaning', 'on', '--endpoint', server.url, '--model', 'bag-of-words-512'], env)
    const embed = await timed(['embed', '--json'], env)
    await timed(['meaning', 'off'], env)
    const gen = new FactGenerator(7)
    const queries = new ZipfQueries(
      Array.from({length: Math.min(size, 20_000)}, () => gen.fact().content),
      5,
    )
    const list = Array.from({length: QUERIES}, () => queries.query())
    const off = await throughServer(home, {MEM_MEANING: 'off'}, list)
    const on = await throughServer(home, {MEM_MEANING: 'on'}, list)
    return [
      [`${size} facts: mem embed through the endpoint`, '', `${(embed.ms / 1000).toFixed(1)} s`, ''],
      ...rowsFor(`${size} facts, endpoint`, off, on),
    ]
  } finally {
    rmSync(home, {recursive: true, force: true})
  }
}

const log = (text: string) => console.log(text)
log(`## Meaning: what it costs (${new Date().toISOString()})\n`)
log(grid(['the model shipped with mem (USE lite, 512 numbers)', 'figure'], await modelCost(), [false, true], MARKDOWN))
log('')
const rows: string[][] = []
for (const size of SIZES) rows.push(...(await withModel(size)))
const endpoint = await startEmbeddingServer()
endpoint.mode = {kind: 'dimension', dimensions: 512}
try {
  if (LARGE > 0) rows.push(...(await withEndpoint(LARGE, endpoint)))
} finally {
  await endpoint.close()
}
log(
  grid(
    ['measure (ms unless said)', 'meaning off', 'meaning on', 'on ÷ off'],
    rows,
    [false, true, true, true],
    MARKDOWN,
  ),
)
