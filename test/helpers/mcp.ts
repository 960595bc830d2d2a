import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import type {Transport as ClientTransport} from '@modelcontextprotocol/sdk/shared/transport.js'
import type {CallToolResult, Tool} from '@modelcontextprotocol/sdk/types.js'

import {BIN, childEnv, tempHome} from './mem.js'

export interface McpSession {
  client: Client
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

/** The transports the contract tests run over: the same checks for each. */
export const TRANSPORTS: Transport[] = ['stdio', 'http']

/**
 * Starts `mem mcp serve` on a fresh MEM_HOME before the calling suite and stops it after:
 * over stdio, or as `mem mcp serve --http` with a token that may use every agent.
 * Call it inside `describe`; read `home` and `mcp` from the returned object in the tests.
 */
export function serveDuringSuite(args: string[] = [], transport: Transport = 'stdio'): {home: string; mcp: McpSession} {
  const suite = {} as {home: string; mcp: McpSession}
  let cleanup = () => {}
  let stopHttp = async () => {}
  before(async () => {
    const temp = tempHome()
    cleanup = temp.cleanup
    suite.home = temp.home
    if (transport === 'stdio') suite.mcp = await connectMcp(temp.home, {args})
    else {
      const {createToken, connectHttp, startHttpServe} = await import('./http.js')
      const token = createToken(temp.home, ['--name', 'suite'])
      const served = await startHttpServe(temp.home, args)
      stopHttp = async () => void (await served.stop())
      // A connection per call: the suites run the CLI with spawnSync between calls, which blocks
      // this process's event loop; past the server's 5 s keep-alive the client would send on a
      // socket the server has closed, and see "fetch failed".
      suite.mcp = await connectHttp(served.url, token, {Connection: 'close'})
    }
  })
  after(async () => {
    await suite.mcp?.close()
    await stopHttp()
    cleanup()
  })
  return suite
}
