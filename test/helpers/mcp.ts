import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import type {Transport as ClientTransport} from '@modelcontextprotocol/sdk/shared/transport.js'
import type {CallToolResult, Tool} from '@modelcontextprotocol/sdk/types.js'
import type {Client as V2Client} from '@modelcontextprotocol/client'

import {BIN, childEnv, tempHome} from './mem.js'

export interface McpSession {
  /** The 1.x client of a 2025-era session (undefined in a 2026-07-28 one). */
  client?: Client
  tools: Tool[]
  call: (name: string, args: Record<string, unknown>) => Promise<CallToolResult>
  close: () => Promise<void>
  /** The server process, for sending it signals (stdio sessions only). */
  pid?: number
}

/**
 * Starts the built `mem mcp serve` as a child process and connects the official SDK client
 * over stdio. tools/list is read first, as a real client does, so the client checks every
 * structuredContent against the advertised outputSchema.
 */
export async function connectMcp(
  home: string,
  options: {args?: string[]; env?: Record<string, string | undefined>; prefix?: string[]} = {},
): Promise<McpSession> {
  // `prefix`: a command the server runs under (strace, say); `pid` is then that command's.
  const command = [...(options.prefix ?? []), process.execPath, BIN, 'mcp', 'serve', ...(options.args ?? [])]
  const transport = new StdioClientTransport({
    command: command[0]!,
    args: command.slice(1),
    env: childEnv(home, options.env) as Record<string, string>,
    stderr: 'pipe',
  })
  return {...(await openSession(transport, 'mem-tests')), pid: transport.pid!}
}

/** Connects the official client over `transport` and reads tools/list first, as a real client does. */
export async function openSession(transport: ClientTransport, name: string): Promise<McpSession> {
  const client = new Client({name, version: '1.0.0'})
  await client.connect(transport)
  const {tools} = await client.listTools()
  return {
    client,
    tools,
    call: async (tool, args) => (await client.callTool({name: tool, arguments: args})) as CallToolResult,
    close: () => client.close(),
  }
}

export type Transport = 'stdio' | 'http'

/** The protocol eras the contract runs in: the 2025 revisions (the 1.x client) and 2026-07-28 (the 2.x client pinned to it). */
export type Era = '2025' | '2026-07-28'

export const ERAS: Era[] = ['2025', '2026-07-28']

/** Where a 2.x client reaches mem: a `mem mcp serve` it starts on `home`, or an HTTP endpoint. */
export type V2Target = {home: string; args?: string[]} | {url: string; headers: Record<string, string>}

/**
 * Connects a client of the SDK's 2.x packages: pinned to 2026-07-28 (no initialize, no session;
 * its negotiated version is checked, as the SDK's auto mode would fall back to initialize without
 * an error), or left to its default, the 2025 handshake.
 */
export async function connectV2(target: V2Target, era: Era): Promise<V2Client> {
  const {Client, StreamableHTTPClientTransport} = await import('@modelcontextprotocol/client')
  const {StdioClientTransport: V2Stdio} = await import('@modelcontextprotocol/client/stdio')
  const transport =
    'url' in target
      ? new StreamableHTTPClientTransport(new URL(target.url), {requestInit: {headers: target.headers}})
      : new V2Stdio({
          command: process.execPath,
          args: [BIN, 'mcp', 'serve', ...(target.args ?? [])],
          env: childEnv(target.home) as Record<string, string>,
          stderr: 'pipe',
        })
  const modern = era === '2026-07-28'
  const client = new Client(
    {name: `mem-tests-2x-${era}`, version: '1.0.0'},
    modern ? {versionNegotiation: {mode: {pin: era}}} : {},
  )
  await client.connect(transport)
  const negotiated = client.getNegotiatedProtocolVersion()
  if (modern !== (negotiated === era)) throw new Error(`asked for MCP ${era}, negotiated ${negotiated}`)
  return client
}

/** A 2.x client's session, tools/list read first as a real client does. */
export async function openV2Session(target: V2Target, era: Era): Promise<McpSession> {
  const client = await connectV2(target, era)
  const {tools} = await client.listTools()
  return {
    tools: tools as Tool[],
    call: async (tool, args) => (await client.callTool({name: tool, arguments: args})) as CallToolResult,
    close: () => client.close(),
  }
}

/** The transports the contract tests run over: the same checks for each. */
export const TRANSPORTS: Transport[] = ['stdio', 'http']

/**
 * Starts `mem mcp serve` on a fresh MEM_HOME before the calling suite and stops it after:
 * over stdio, or as `mem mcp serve --http` with a token that may use every agent.
 * Call it inside `describe`; read `home` and `mcp` from the returned object in the tests.
 */
export function serveDuringSuite(
  args: string[] = [],
  transport: Transport = 'stdio',
  era: Era = '2025',
): {home: string; mcp: McpSession} {
  const suite = {} as {home: string; mcp: McpSession}
  let cleanup = () => {}
  let stopHttp = async () => {}
  before(async () => {
    const temp = tempHome()
    cleanup = temp.cleanup
    suite.home = temp.home
    if (transport === 'stdio')
      suite.mcp =
        era === '2025' ? await connectMcp(temp.home, {args}) : await openV2Session({home: temp.home, args}, era)
    else {
      const {createToken, connectHttp, startHttpServe} = await import('./http.js')
      const token = createToken(temp.home, ['--name', 'suite'])
      const served = await startHttpServe(temp.home, args)
      stopHttp = async () => void (await served.stop())
      // A connection per call: the suites run the CLI with spawnSync between calls, which blocks
      // this process's event loop; past the server's 5 s keep-alive the client would send on a
      // socket the server has closed, and see "fetch failed".
      suite.mcp =
        era === '2025'
          ? await connectHttp(served.url, token, {Connection: 'close'})
          : await openV2Session(
              {url: served.url, headers: {Authorization: `Bearer ${token}`, Connection: 'close'}},
              era,
            )
    }
  })
  after(async () => {
    await suite.mcp?.close()
    await stopHttp()
    cleanup()
  })
  return suite
}
