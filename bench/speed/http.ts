import {spawn, spawnSync, type ChildProcess} from 'node:child_process'
import {createInterface} from 'node:readline'

import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js'

import {BIN, memEnv} from './cold.js'
import {FactGenerator} from './facts.js'
import {seedAgent} from './seed.js'
import {argsFor, CYCLE, TOOLS, type Tool} from './tool-calls.js'
import {ms, summarize} from './stats.js'

const AGENTS = 4

type Call = (name: string, args: Record<string, unknown>) => Promise<CallToolResult>

interface Level {
  clients: number
  transport: 'http' | 'stdio'
  calls: number
  seconds: number
  samples: Record<Tool, number[]>
}

/**
 * The HTTP server against stdio in the same run: `clients` clients at once, each with its
 * own stdio server or all sharing one `mem mcp serve --http`, each calling the tools in a
 * fixed cycle for `seconds`. Reports calls a second and p50/p95 per tool.
 */
export async function runHttpBench(
  home: string,
  options: {levels: number[]; seconds: number; facts: number},
  log: (text: string) => void,
): Promise<string> {
  for (let a = 0; a < AGENTS; a++) seedAgent(home, `bench-${a}`, options.facts, 1000 + a)
  const token = makeToken(home)
  const server = await startHttp(home)
  const results: Level[] = []
  try {
    for (const clients of options.levels) {
      // Interleaved, so a busy machine slows both alike.
      results.push(await measure('http', clients, options.seconds, () => connectHttp(server.url, token)))
      log(`http at ${clients} clients done`)
      results.push(await measure('stdio', clients, options.seconds, () => connectStdio(home)))
      log(`stdio at ${clients} clients done`)
    }
  } finally {
    server.child.kill('SIGTERM')
  }
  return report(results, options)
}

async function measure(
  transport: Level['transport'],
  clients: number,
  seconds: number,
  connect: () => Promise<{call: Call; close: () => Promise<void>}>,
): Promise<Level> {
  const sessions = await Promise.all(Array.from({length: clients}, connect))
  const samples = Object.fromEntries(TOOLS.map((t) => [t, [] as number[]])) as Record<Tool, number[]>
  let calls = 0
  const deadline = performance.now() + seconds * 1000
  const started = performance.now()
  await Promise.all(
    sessions.map(async (s, i) => {
      const gen = new FactGenerator(7000 + i)
      const agent = `bench-${i % AGENTS}`
      for (let n = 0; performance.now() < deadline; n++) {
        const tool = CYCLE[n % CYCLE.length]!
        const args = argsFor(tool, agent, gen)
        const t0 = performance.now()
        const result = await s.call(tool, args)
        samples[tool].push(performance.now() - t0)
        if (result.isError) throw new Error(`${tool} failed over ${transport}: ${JSON.stringify(result.content)}`)
        calls++
      }
    }),
  )
  const elapsed = (performance.now() - started) / 1000
  await Promise.all(sessions.map((s) => s.close()))
  return {clients, transport, calls, seconds: elapsed, samples}
}

function report(levels: Level[], options: {seconds: number; facts: number}): string {
  const head = `| clients | transport | calls | calls/s | ${TOOLS.map((t) => `${t} p50 / p95 ms`).join(' | ')} | calls/s vs stdio |`
  const rule = `| ---: | --- | ---: | ---: | ${TOOLS.map(() => '---:').join(' | ')} | ---: |`
  const rate = (l: Level) => l.calls / l.seconds
  const lines = levels.map((l) => {
    const stdio = levels.find((o) => o.transport === 'stdio' && o.clients === l.clients)
    const cells = TOOLS.map((t) => {
      const s = summarize(l.samples[t])
      return `${ms(s.median)} / ${ms(s.p95)}`
    })
    const ratio = l.transport === 'http' && stdio ? (rate(l) / rate(stdio)).toFixed(2) : ''
    return `| ${l.clients} | ${l.transport} | ${l.calls} | ${rate(l).toFixed(0)} | ${cells.join(' | ')} | ${ratio} |`
  })
  const note = `HTTP: one \`mem mcp serve --http\` shared by all clients; stdio: one \`mem mcp serve\` per client. ${AGENTS} agents of ${options.facts.toLocaleString('en')} facts; each client calls ${CYCLE.join(', ')} in turn for ${options.seconds} s.`
  return ['## HTTP and stdio under concurrent clients', '', note, '', head, rule, ...lines].join('\n')
}

function makeToken(home: string): string {
  const r = spawnSync(process.execPath, [BIN, 'token', 'create', '--json', '--name', 'bench'], {
    env: memEnv(home, 'bench-0'),
    encoding: 'utf8',
  })
  if (r.status !== 0) throw new Error(`mem token create failed: ${r.stderr}`)
  return (JSON.parse(r.stdout) as {token: string}).token
}

async function startHttp(home: string): Promise<{url: string; child: ChildProcess}> {
  const child = spawn(process.execPath, [BIN, 'mcp', 'serve', '--http', '--port', '0', '--rate-limit', '100000000'], {
    env: memEnv(home, 'bench-0'),
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({input: child.stderr!}).on('line', (line) => {
      if (line.includes('"event":"listening"')) resolve((JSON.parse(line) as {url: string}).url)
    })
    child.once('exit', (code) => reject(new Error(`mem mcp serve --http exited ${code}`)))
  })
  return {url, child}
}

async function connectHttp(url: string, token: string): Promise<{call: Call; close: () => Promise<void>}> {
  const client = new Client({name: 'mem-bench-http', version: '1.0.0'})
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {requestInit: {headers: {Authorization: `Bearer ${token}`}}}),
  )
  await client.listTools()
  return {
    call: async (name, args) => (await client.callTool({name, arguments: args})) as CallToolResult,
    close: () => client.close(),
  }
}

async function connectStdio(home: string): Promise<{call: Call; close: () => Promise<void>}> {
  const client = new Client({name: 'mem-bench-stdio', version: '1.0.0'})
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'mcp', 'serve'],
      env: memEnv(home, 'bench-0') as Record<string, string>,
      stderr: 'ignore',
    }),
  )
  await client.listTools()
  return {
    call: async (name, args) => (await client.callTool({name, arguments: args})) as CallToolResult,
    close: () => client.close(),
  }
}
