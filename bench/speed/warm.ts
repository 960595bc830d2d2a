import {readFileSync} from 'node:fs'

import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js'

import {BIN, memEnv} from './cold.js'

const CALL_TIMEOUT_MS = 15 * 60_000

/** A running `mem mcp serve` and the official SDK client talking to it over stdio. */
export class Server {
  private constructor(
    private readonly client: Client,
    private readonly transport: StdioClientTransport,
  ) {}

  /** `env`: more environment for the server (MEM_STORE, say). */
  static async start(home: string, agent: string, env: Record<string, string> = {}): Promise<Server> {
    return Server.spawn([BIN, 'mcp', 'serve'], {...memEnv(home, agent), ...env})
  }

  /** Any MCP server over stdio, run by this Node (`args` are Node's): the SQLite baseline's, say. */
  static async spawn(args: string[], env: NodeJS.ProcessEnv): Promise<Server> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args,
      env: env as Record<string, string>,
      stderr: 'inherit',
    })
    const client = new Client({name: 'mem-bench', version: '1.0.0'})
    await client.connect(transport)
    await client.listTools()
    return new Server(client, transport)
  }

  /** Round trip of one tool call, in ms; a tool error fails the benchmark. */
  async call(name: string, args: Record<string, unknown>): Promise<{ms: number; result: CallToolResult}> {
    const started = process.hrtime.bigint()
    // Not the SDK's 60 s default: a first search at 1,000,000 facts under load may take longer, and its time is the figure.
    const result = (await this.client.callTool({name, arguments: args}, undefined, {
      timeout: CALL_TIMEOUT_MS,
    })) as CallToolResult
    const ms = Number(process.hrtime.bigint() - started) / 1e6
    if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`)
    return {ms, result}
  }

  /** The protocol's own ping: the same pipe and JSON-RPC, no store work. */
  async ping(): Promise<number> {
    const started = process.hrtime.bigint()
    await this.client.ping()
    return Number(process.hrtime.bigint() - started) / 1e6
  }

  /** Peak resident memory of the server process so far (Linux VmHWM), in MiB. */
  peakRssMiB(): number {
    return this.status('VmHWM')
  }

  /** Resident memory of the server process now (Linux VmRSS), in MiB. */
  rssMiB(): number {
    return this.status('VmRSS')
  }

  private status(field: string): number {
    const pid = this.transport.pid
    if (pid === null) return Number.NaN
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8')
      return Number(new RegExp(`${field}:\\s+(\\d+)\\s+kB`).exec(status)?.[1]) / 1024
    } catch {
      return Number.NaN
    }
  }

  async close(): Promise<void> {
    await this.client.close()
  }
}
