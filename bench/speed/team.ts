import {spawn, spawnSync, type ChildProcess} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {createInterface} from 'node:readline'

import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js'
import pg from 'pg'

import {guarded} from '../../src/store/duplicates.js'
import {FileStore} from '../../src/store/file/file-store.js'
import {PostgresStore, duplicateKey} from '../../src/store/postgres/postgres-store.js'
import {isLive, type FactRecord} from '../../src/store/records.js'
import {freshDatabase} from '../../test/helpers/postgres.js'
import {BIN, memEnv} from './cold.js'
import {FactGenerator, rng} from './facts.js'
import {seedAgent} from './seed.js'
import {argsFor, CYCLE, TOOLS, type Tool} from './tool-calls.js'
import {ms, summarize} from './stats.js'

const SERVERS = 3
const CLIENTS = 32
/** Agents whose first search is timed alone, before the load (none of them is touched before). */
const COLD_SAMPLE = 12
/** Rows per INSERT while seeding PostgreSQL. */
const SEED_CHUNK = 10_000

const agentName = (i: number): string => `team-${String(i).padStart(4, '0')}`

type StoreName = 'files' | 'PostgreSQL'

interface Served {
  store: StoreName
  servers: {url: string; child: ChildProcess}[]
}

interface Load {
  calls: number
  seconds: number
  samples: Record<Tool, number[]>
}

/**
 * The team benchmark (docs/team.md, "Sizing"): `agents` agents of `perAgent` facts each, seeded
 * once into a home and copied into a fresh database in the store's own schema (multi-row inserts,
 * as seed.ts writes segments for the files). Three `mem mcp serve --http` per store, on one home
 * for the files and one database for PostgreSQL, and 32 MCP clients spread over the three; each
 * client runs sessions (search, add, search, resume, save) on agents it picks at random. Measured
 * on both stores in the same run, alternating: the first search of agents nobody searched yet
 * (one at a time), then rounds of load (throughput, p50/p95 per tool), then each server's peak RSS.
 */
export async function runTeamBench(
  home: string,
  options: {agents: number; perAgent: number; seconds: number; rounds: number},
  log: (text: string) => void,
): Promise<string> {
  const total = options.agents * options.perAgent
  let started = performance.now()
  for (let i = 0; i < options.agents; i++) seedAgent(home, agentName(i), options.perAgent, 5_000_000 + i)
  const seededFiles = performance.now() - started
  log(`team: ${total} facts seeded into the files in ${ms(seededFiles)} ms (${home})`)
  const url = await freshDatabase()
  started = performance.now()
  const dbBytes = await seedPostgres(home, url, options.agents)
  const seededPg = performance.now() - started
  log(`team: the same facts copied into PostgreSQL in ${ms(seededPg)} ms`)

  const token = makeToken(home)
  const files: Served = {store: 'files', servers: await startServers(home, {})}
  const postgres: Served = {store: 'PostgreSQL', servers: await startServers(home, {MEM_STORE: url})}
  const both = [files, postgres]
  try {
    // The first search of a cold agent: no server holds its index and none is saved, so the
    // server builds it from the facts (and saves it). One call at a time, the stores alternating.
    const cold: Record<StoreName, number[]> = {files: [], PostgreSQL: []}
    const gen = new FactGenerator(77)
    for (let s = 0; s < COLD_SAMPLE; s++) {
      const agent = agentName(Math.floor((s * options.agents) / COLD_SAMPLE))
      const query = gen.query()
      for (const served of s % 2 === 0 ? both : [...both].reverse()) {
        const session = await connect(served.servers[s % SERVERS]!.url, token)
        const t0 = performance.now()
        await session.call('memory_search', {agent_id: agent, query})
        cold[served.store].push(performance.now() - t0)
        await session.close()
      }
    }
    log('team: cold first searches done')

    const loads: Record<StoreName, Load> = {
      files: {calls: 0, seconds: 0, samples: emptySamples()},
      PostgreSQL: {calls: 0, seconds: 0, samples: emptySamples()},
    }
    for (let round = 0; round < options.rounds; round++) {
      for (const served of round % 2 === 0 ? both : [...both].reverse()) {
        await load(served, token, options, round, loads[served.store])
        log(`team: ${served.store} round ${round + 1} done (${loads[served.store].calls} calls so far)`)
      }
    }
    const rss = Object.fromEntries(both.map((s) => [s.store, s.servers.map((x) => peakRssMiB(x.child))])) as Record<
      StoreName,
      number[]
    >
    return report(options, {seededFiles, seededPg, dbBytes, cold, loads, rss})
  } finally {
    for (const served of both) for (const s of served.servers) s.child.kill('SIGTERM')
  }
}

/** `clients` sessions spread over the servers, each running agent sessions for `seconds`. */
async function load(
  served: Served,
  token: string,
  options: {agents: number; seconds: number},
  round: number,
  into: Load,
): Promise<void> {
  const sessions = await Promise.all(
    Array.from({length: CLIENTS}, (_, i) => connect(served.servers[i % SERVERS]!.url, token)),
  )
  const deadline = performance.now() + options.seconds * 1000
  const started = performance.now()
  await Promise.all(
    sessions.map(async (session, i) => {
      // The same choices for both stores in a round: client i of round r draws the same agents.
      const gen = new FactGenerator(9000 + round * CLIENTS + i)
      const pick = rng(19_000 + round * CLIENTS + i)
      while (performance.now() < deadline) {
        const agent = agentName(Math.floor(pick() * options.agents))
        for (const tool of CYCLE) {
          const t0 = performance.now()
          const result = await session.call(tool, argsFor(tool, agent, gen))
          into.samples[tool].push(performance.now() - t0)
          if (result.isError) throw new Error(`${tool} failed on ${served.store}: ${JSON.stringify(result.content)}`)
          into.calls++
        }
      }
    }),
  )
  into.seconds += (performance.now() - started) / 1000
  await Promise.all(sessions.map((s) => s.close()))
}

/**
 * The home's facts, agent by agent, written into the store's tables as the store itself would
 * have left them after one import per agent: revision 1, every row changed at 1, the agent's
 * positions and last id at its last fact. Many agents per statement, so a million rows take
 * seconds rather than a million transactions.
 */
async function seedPostgres(home: string, url: string, agents: number): Promise<number> {
  let size = 0
  // Creates the schema (and checks that the store opens on it).
  await (await PostgresStore.open(url)).close()
  const source = new FileStore(home)
  const client = new pg.Client({connectionString: url})
  await client.connect()
  try {
    let facts: {agent: string; seq: number; record: FactRecord}[] = []
    let heads: {agent: string; count: number; last: string | null}[] = []
    const flush = async (): Promise<void> => {
      if (heads.length === 0) return
      await client.query(
        `INSERT INTO mem_agents (agent, revision, fact_seq, last_fact_id)
         SELECT agent, 1, count, last FROM unnest($1::text[], $2::bigint[], $3::text[]) AS r (agent, count, last)`,
        [heads.map((h) => h.agent), heads.map((h) => h.count), heads.map((h) => h.last)],
      )
      await client.query(
        `INSERT INTO mem_facts (agent, id, seq, changed, live, dup_key, record)
         SELECT agent, id, seq, 1, live, dup_key, record::json
           FROM unnest($1::text[], $2::text[], $3::bigint[], $4::boolean[], $5::text[], $6::text[])
             AS r (agent, id, seq, live, dup_key, record)`,
        [
          facts.map((f) => f.agent),
          facts.map((f) => f.record.id),
          facts.map((f) => f.seq),
          facts.map((f) => isLive(f.record)),
          facts.map((f) => (guarded(f.record) ? duplicateKey(f.record.content) : null)),
          facts.map((f) => JSON.stringify(f.record)),
        ],
      )
      facts = []
      heads = []
    }
    for (let i = 0; i < agents; i++) {
      const agent = agentName(i)
      const records = await source.listFacts(agent)
      let last: string | null = null
      records.forEach((record, n) => {
        facts.push({agent, seq: n + 1, record})
        if (last === null || record.id > last) last = record.id
      })
      heads.push({agent, count: records.length, last})
      if (facts.length >= SEED_CHUNK) await flush()
    }
    await flush()
    await client.query('ANALYZE')
    const {rows} = await client.query<{size: string}>('SELECT pg_database_size(current_database()) AS size')
    size = Number(rows[0]!.size)
  } finally {
    await client.end()
  }
  // The rows must be what the store itself would have written (mem db check's rules).
  const store = await PostgresStore.open(url)
  try {
    const check = await store.check()
    if (!check.ok)
      throw new Error(`the seeded database fails mem db check: ${JSON.stringify(check.problems.slice(0, 3))}`)
  } finally {
    await store.close()
  }
  return size
}

function makeToken(home: string): string {
  const r = spawnSync(process.execPath, [BIN, 'token', 'create', '--json', '--name', 'team-bench'], {
    env: memEnv(home, agentName(0)),
    encoding: 'utf8',
  })
  if (r.status !== 0) throw new Error(`mem token create failed: ${r.stderr}`)
  return (JSON.parse(r.stdout) as {token: string}).token
}

/** Three `mem mcp serve --http` on one home (tokens from there; facts from MEM_STORE when set). */
async function startServers(home: string, env: Record<string, string>): Promise<Served['servers']> {
  return Promise.all(
    Array.from({length: SERVERS}, async () => {
      const child = spawn(
        process.execPath,
        [BIN, 'mcp', 'serve', '--http', '--port', '0', '--rate-limit', '100000000'],
        {env: {...memEnv(home, agentName(0)), ...env}, stdio: ['ignore', 'ignore', 'pipe']},
      )
      const url = await new Promise<string>((resolve, reject) => {
        createInterface({input: child.stderr!}).on('line', (line) => {
          if (line.includes('"event":"listening"')) resolve((JSON.parse(line) as {url: string}).url)
        })
        child.once('exit', (code) => reject(new Error(`mem mcp serve --http exited ${code}`)))
      })
      return {url, child}
    }),
  )
}

async function connect(
  url: string,
  token: string,
): Promise<{
  call: (name: string, args: Record<string, unknown>) => Promise<CallToolResult>
  close: () => Promise<void>
}> {
  const client = new Client({name: 'mem-bench-team', version: '1.0.0'})
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {requestInit: {headers: {Authorization: `Bearer ${token}`}}}),
  )
  return {
    call: async (name, args) => (await client.callTool({name, arguments: args})) as CallToolResult,
    close: () => client.close(),
  }
}

function emptySamples(): Record<Tool, number[]> {
  return Object.fromEntries(TOOLS.map((t) => [t, [] as number[]])) as Record<Tool, number[]>
}

/** Peak resident memory of a server process (Linux VmHWM), in MiB. */
function peakRssMiB(child: ChildProcess): number {
  try {
    const status = readFileSync(`/proc/${child.pid}/status`, 'utf8')
    return Number(/VmHWM:\s+(\d+)\s+kB/.exec(status)?.[1]) / 1024
  } catch {
    return Number.NaN
  }
}

function report(
  options: {agents: number; perAgent: number; seconds: number; rounds: number},
  r: {
    seededFiles: number
    seededPg: number
    dbBytes: number
    cold: Record<StoreName, number[]>
    loads: Record<StoreName, Load>
    rss: Record<StoreName, number[]>
  },
): string {
  const stores: StoreName[] = ['PostgreSQL', 'files']
  const total = options.agents * options.perAgent
  const head = `| store | calls | calls/s | ${TOOLS.map((t) => `${t} p50 / p95 ms`).join(' | ')} | first search of a cold agent p50 / max ms | peak RSS per server MiB |`
  const rule = `| --- | ---: | ---: | ${TOOLS.map(() => '---:').join(' | ')} | ---: | --- |`
  const lines = stores.map((store) => {
    const l = r.loads[store]
    const cells = TOOLS.map((t) => {
      const s = summarize(l.samples[t])
      return `${ms(s.median)} / ${ms(s.p95)}`
    })
    const cold = summarize(r.cold[store])
    const rss = r.rss[store].map((m) => m.toFixed(0)).join(', ')
    return `| ${store} | ${l.calls} | ${(l.calls / l.seconds).toFixed(0)} | ${cells.join(' | ')} | ${ms(cold.median)} / ${ms(cold.max)} | ${rss} |`
  })
  const ratio = (
    r.loads.PostgreSQL.calls /
    r.loads.PostgreSQL.seconds /
    (r.loads.files.calls / r.loads.files.seconds)
  ).toFixed(2)
  return [
    `## A team: ${total.toLocaleString('en')} facts over ${options.agents.toLocaleString('en')} agents, ${SERVERS} HTTP servers, ${CLIENTS} clients`,
    '',
    `Each store: ${SERVERS} \`mem mcp serve --http\` (on one home for the files, one database for PostgreSQL), ${CLIENTS} MCP clients spread over them, each running sessions (${CYCLE.join(', ')}) on agents picked at random; ${options.rounds} rounds of ${options.seconds} s per store, the stores alternating. The first search of a cold agent: ${COLD_SAMPLE} agents no server had searched, with no saved index, one call at a time.`,
    '',
    head,
    rule,
    ...lines,
    '',
    `- PostgreSQL's throughput is ${ratio} × the files'.`,
    `- seeded: ${ms(r.seededFiles)} ms into the files, ${ms(r.seededPg)} ms to copy into PostgreSQL (the database then held ${(r.dbBytes / 2 ** 20).toFixed(0)} MiB)`,
  ].join('\n')
}
