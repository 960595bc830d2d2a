import {Flags} from '@oclif/core'

import {MemCommand} from '../../cli/base-command.js'

export default class McpServe extends MemCommand {
  static override summary = 'Run the MCP server on stdio (for an MCP client\'s config).'
  static override description =
    'Serves memory_search, memory_add, checkpoint_save, checkpoint_resume and memory_reflect over stdio. ' +
    'stdout carries only the protocol; messages go to stderr. Tools that name no agent_id use --agent, else $MEM_AGENT, else "default".'
  static override examples = ['<%= config.bin %> mcp serve', '<%= config.bin %> mcp serve --agent claude-desktop']
  static override flags = {
    agent: Flags.string({char: 'a', description: 'Default agent for tool calls that name none [default: $MEM_AGENT, else "default"].', helpValue: 'ID'}),
  }

  async run(): Promise<void> {
    const {flags} = await this.parse(McpServe)
    // The SDK is loaded here only, so that no other command pays for it.
    const [{createServer}, {StdioServerTransport}] = await Promise.all([import('../../mcp/server.js'), import('@modelcontextprotocol/sdk/server/stdio.js')])
    const server = createServer(this.context(flags.agent, true), this.config.version)
    const transport = new StdioServerTransport()
    // The SDK skips a line it cannot read; JSON-RPC asks for an error reply with id null, so say so and keep serving.
    transport.onerror = (error) => {
      const reply = unreadableReply(error)
      if (reply) transport.send(reply as never).catch(() => {})
    }
    const closed = new Promise<void>((resolve) => {
      server.onclose = resolve
    })
    process.stdin.once('end', () => void server.close())
    await server.connect(transport)
    await closed
  }
}

/** The JSON-RPC error for a line that is not JSON (-32700) or not a JSON-RPC message (-32600); the input is not echoed. */
function unreadableReply(error: Error): object | undefined {
  const reply = (code: number, message: string) => ({jsonrpc: '2.0', id: null, error: {code, message}})
  if (error instanceof SyntaxError) return reply(-32700, 'Parse error: the message is not valid JSON.')
  if (error.name === 'ZodError') return reply(-32600, 'Invalid Request: the message is not a JSON-RPC 2.0 request, notification or response.')
  return undefined
}
