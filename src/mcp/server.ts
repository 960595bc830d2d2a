import {Server} from '@modelcontextprotocol/sdk/server/index.js'
import {CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError, type CallToolResult} from '@modelcontextprotocol/sdk/types.js'

import {asMemError} from '../errors.js'
import {runOperation, type OperationContext} from '../ops/index.js'
import {findOperation, toolDefinitions} from './tools.js'

/**
 * The MCP face of the operations: tools/list and tools/call built from the one inventory.
 * Success carries the prose as text and the payload as structuredContent; failure is a
 * tool error with text only, never structuredContent (docs/adr/0001).
 */
export function createServer(ctx: OperationContext, version: string): Server {
  const server = new Server({name: 'mem', title: 'mem: memory for agents', version}, {capabilities: {tools: {}}})
  const tools = toolDefinitions()
  server.setRequestHandler(ListToolsRequestSchema, async () => ({tools}))
  server.setRequestHandler(CallToolRequestSchema, async (request) => callTool(ctx, request.params.name, request.params.arguments ?? {}))
  return server
}

export async function callTool(ctx: OperationContext, name: string, args: unknown): Promise<CallToolResult> {
  const op = findOperation(name)
  if (!op) throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${name}". Available tools: ${toolDefinitions().map((t) => t.name).join(', ')}.`)
  try {
    const payload = (await runOperation(op, ctx, args)) as Record<string, unknown>
    return {content: [{type: 'text', text: op.prose(payload)}], structuredContent: payload}
  } catch (error) {
    return {isError: true, content: [{type: 'text', text: asMemError(error).message}]}
  }
}
