import {Server} from '@modelcontextprotocol/sdk/server/index.js'
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
} from '@modelcontextprotocol/sdk/types.js'

import {asMemError, MemError} from '../errors.js'
import {runOperation, type OperationContext} from '../ops/index.js'
import {findOperation, toolDefinitions, type ToolDefinition} from './tools.js'

export interface ServerOptions {
  /** Only the tools whose annotations say read-only are listed and callable. */
  readOnly?: boolean
  /** Told the outcome of every tools/call (for the HTTP request log). */
  onCall?: (tool: string, ok: boolean) => void
}

/**
 * The MCP face of the operations: tools/list and tools/call built from the one inventory,
 * the same for stdio and HTTP. Success carries the prose as text and the payload as
 * structuredContent; failure is a tool error with text only, never structuredContent (docs/adr/0001).
 */
export function createServer(ctx: OperationContext, version: string, options: ServerOptions = {}): Server {
  const server = new Server(
    {name: 'mem', title: 'mem: memory for agents', version},
    {capabilities: {tools: {}}, instructions: INSTRUCTIONS},
  )
  const tools = listedTools(options.readOnly === true)
  server.setRequestHandler(ListToolsRequestSchema, async () => ({tools}))
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const result = await callTool(ctx, request.params.name, request.params.arguments ?? {}, options)
    options.onCall?.(request.params.name, result.isError !== true)
    return result
  })
  return server
}

/** What a client shows the model at initialize: what mem is for, and when to use each tool. */
export const INSTRUCTIONS = [
  "mem is the user's long-term memory, kept on their machine across sessions.",
  'Call memory_search before answering anything that may depend on what was learned earlier (preferences, decisions, names, how things work).',
  'Call memory_add when you learn a durable fact worth keeping, as one short self-contained sentence; to change or remove a fact stored before, use memory_reflect with its id instead of adding a contradicting one.',
  'For work that spans sessions, call checkpoint_resume at the start (on_missing "empty" if there may be none) and checkpoint_save at natural breakpoints and before stopping.',
  'Leave agent_id out unless the user asks for a separate, named memory.',
].join(' ')

/**
 * A JSON-RPC error for the client. The SDK's McpError puts "MCP error <code>: " into its
 * message and the client adds it again, so the client would show the prefix twice.
 */
function protocolError(code: ErrorCode, message: string): Error & {code: number} {
  return Object.assign(new Error(message), {code})
}

let cached: ToolDefinition[] | undefined

/** The advertised tools, converted once per process (the HTTP server builds many servers). */
export function listedTools(readOnly: boolean): ToolDefinition[] {
  cached ??= toolDefinitions()
  return readOnly ? cached.filter((t) => t.annotations.readOnlyHint) : cached
}

export async function callTool(
  ctx: OperationContext,
  name: string,
  args: unknown,
  options: ServerOptions = {},
): Promise<CallToolResult> {
  const op = findOperation(name)
  if (!op)
    throw protocolError(
      ErrorCode.InvalidParams,
      `Unknown tool "${name}". Available tools: ${listedTools(options.readOnly === true)
        .map((t) => t.name)
        .join(', ')}.`,
    )
  try {
    if (options.readOnly && !op.annotations.readOnlyHint)
      throw new MemError(
        'forbidden',
        `${name} writes, and this server is read-only (--read-only); it offers ${listedTools(true)
          .map((t) => t.name)
          .join(', ')}.`,
      )
    const payload = (await runOperation(op, ctx, args)) as Record<string, unknown>
    return {content: [{type: 'text', text: op.prose(payload)}], structuredContent: payload}
  } catch (error) {
    return {isError: true, content: [{type: 'text', text: asMemError(error).message}]}
  }
}
