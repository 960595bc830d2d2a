/**
 * Two builds of `mem mcp serve` side by side, alternating, in one run:
 *
 *   MEM_BENCH_BASE=/other/checkout/bin/run.js node --import tsx bench/mcp-builds.ts [rounds]
 *
 * - start: spawning `mem mcp serve` on stdio to the first `tools/list` answered (a fresh home
 *   each time), `rounds` times each (default 15);
 * - HTTP: 600 `memory_search` calls to each build's `mem mcp serve --http` on 200 facts, one
 *   client each, alternating between the two.
 *
 * Both are measured with the 1.x SDK client, the 2025 era every desktop client speaks. Run
 * `npm run build` in both checkouts first. Used for the move to the 2.x SDK server
 * (docs/performance.md).
 */
import {spawn, spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {createInterface} from 'node:readline'

import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js'

import {BIN} from './speed/cold.js'

const base = process.env.MEM_BENCH_BASE
if (!base) throw new Error('set MEM_BENCH_BASE to the bin/run.js of the build to compare with')
const builds = {baseline: base, current: BIN}
const rounds = Number(process.argv[2] ?? 15)

const sorted = (a: number[]) => [...a].sort((x, y) => x - y)
const median = (a: number[]) => sorted(a)[a.length >> 1]!
const p95 = (a: number[]) => sorted(a)[Math.floor(a.length * 0.95)]!

function home(): string {
  return mkdtempSync(join(tmpdir(), 'mem-mcp-builds-'))
}

async function start(bin: string): Promise<number> {
  const dir = home()
  const started = performance.now()
  const client = new Client({name: 'bench', version: '1'})
  const env = {...process.env, MEM_HOME: dir} as Record<string, string>
  await client.connect(new StdioClientTransport({command: process.execPath, args: [bin, 'mcp', 'serve'], env}))
  await client.listTools()
  const ms = performance.now() - started
  await client.close()
  rmSync(dir, {recursive: true, force: true})
  return ms
}

/** `mem mcp serve --http` of `bin` on a fresh home with 200 facts, and a client connected to it. */
async function httpServer(bin: string): Promise<{client: Client; stop: () => Promise<void>}> {
  const dir = home()
  const env = {...process.env, MEM_HOME: dir}
  const created = spawnSync(process.execPath, [bin, 'token', 'create', '--json', '--name', 'bench'], {env})
  const {token} = JSON.parse(created.stdout.toString()) as {token: string}
  const args = [bin, 'mcp', 'serve', '--http', '--port', '0', '--rate-limit', '100000']
  const child = spawn(process.execPath, args, {env, stdio: ['ignore', 'ignore', 'pipe']})
  const url = await new Promise<string>((resolve) =>
    createInterface({input: child.stderr!}).on('line', (line) => {
      const entry = JSON.parse(line) as {event?: string; url?: string}
      if (entry.event === 'listening') resolve(entry.url!)
    }),
  )
  const client = new Client({name: 'bench', version: '1'})
  const headers = {Authorization: `Bearer ${token}`}
  await client.connect(new StreamableHTTPClientTransport(new URL(url), {requestInit: {headers}}))
  for (let i = 0; i < 200; i++)
    await client.callTool({name: 'memory_add', arguments: {content: `fact ${i} about deploys and editors ${i % 7}`}})
  const stop = async () => {
    await client.close()
    child.kill()
    rmSync(dir, {recursive: true, force: true})
  }
  return {client, stop}
}

const starts = {baseline: [] as number[], current: [] as number[]}
for (let r = 0; r < rounds; r++)
  for (const [name, bin] of Object.entries(builds)) starts[name as keyof typeof builds].push(await start(bin))
const servers = {baseline: await httpServer(builds.baseline), current: await httpServer(builds.current)}
const searches = {baseline: [] as number[], current: [] as number[]}
// Alternating, so that a change of load on the machine falls on both builds alike.
for (let i = 0; i < 600; i++)
  for (const name of ['baseline', 'current'] as const) {
    const t = performance.now()
    await servers[name].client.callTool({name: 'memory_search', arguments: {query: `deploys editors ${i % 7}`}})
    searches[name].push(performance.now() - t)
  }
await servers.baseline.stop()
await servers.current.stop()

console.log('| build | start to first tools/list, median | HTTP memory_search median | p95 |')
console.log('| --- | ---: | ---: | ---: |')
for (const name of ['baseline', 'current'] as const)
  console.log(
    `| ${name} | ${median(starts[name]).toFixed(0)} ms | ${median(searches[name]).toFixed(2)} ms | ${p95(searches[name]).toFixed(2)} ms |`,
  )
console.log(
  `current ÷ baseline: start × ${(median(starts.current) / median(starts.baseline)).toFixed(2)}, HTTP search × ${(median(searches.current) / median(searches.baseline)).toFixed(2)}`,
)
