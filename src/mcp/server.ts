import {
  isJSONRPCRequest,
  ProtocolErrorCode,
  Server,
  type CallToolResult,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  type Transport,
} from '@modelcontextprotocol/server'

import {asMemError, MemError} from '../errors.js'
import {runOperation, type OperationContext} from '../ops/index.js'
import {mayCall, readingTools} from './read-only.js'
import {findOperation, toolDefinitions, type ToolDefinition} from './tools.js'

export interface ServerOptions {
  /** Only the tools that never write are listed and callable (src/mcp/read-only.ts). */
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
  const server = new ToolServer(
    {name: 'mem', title: 'mem: memory for agents', version},
    {capabilities: {tools: {}}, instructions: INSTRUCTIONS},
  )
  const tools = listedTools(options.readOnly === true)
  server.setRequestHandler('tools/list', async () => ({tools}))
  server.setRequestHandler('tools/call', async (request) => {
    const result = await callTool(ctx, request.params.name, request.params.arguments ?? {}, options)
    options.onCall?.(request.params.name, result.isError !== true)
    return result
  })
  return server
}

/**
 * The SDK server, with a tools/call whose params have the wrong shape answered "Invalid params"
 * (-32602) in words a client can act on. The SDK checks those params against its schema before
 * any handler runs, and answers a mismatch as -32603 "Internal error" with the schema library's
 * report, so this answers first: on stdio and over HTTP alike, as every transport passes here.
 */
class ToolServer extends Server {
  override async connect(transport: Transport): Promise<void> {
    await super.connect(transport)
    const dispatch = transport.onmessage
    transport.onmessage = (message, extra) => {
      const refusal = invalidToolCall(message)
      if (refusal) transport.send(refusal).catch((error: Error) => this.onerror?.(error))
      else dispatch?.(message, extra)
    }
  }
}

/** The error for a tools/call without a tool name or with arguments that are not an object. */
function invalidToolCall(message: JSONRPCMessage): JSONRPCErrorResponse | undefined {
  if ((message as {method?: unknown}).method !== 'tools/call' || !isJSONRPCRequest(message)) return undefined
  const params = (message.params ?? {}) as {name?: unknown; arguments?: unknown}
  const problem =
    params.name === undefined
      ? `tools/call needs the tool's name in "name".`
      : typeof params.name !== 'string'
        ? `tools/call "name" must be a string, not ${kindOf(params.name)}.`
        : params.arguments !== undefined && kindOf(params.arguments) !== 'an object'
          ? `tools/call "arguments" must be an object of the tool's arguments by name, not ${kindOf(params.arguments)}.`
          : undefined
  if (problem === undefined) return undefined
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: {code: ProtocolErrorCode.InvalidParams, message: `Invalid params: ${problem}`},
  }
}

function kindOf(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`
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
function protocolError(code: ProtocolErrorCode, message: string): Error & {code: number} {
  return Object.assign(new Error(message), {code})
}

let cached: ToolDefinition[] | undefined

/** The advertised tools, converted once per process (the HTTP server builds many servers). */
export function listedTools(readOnly: boolean): ToolDefinition[] {
  cached ??= toolDefinitions()
  return cached.filter((t) => mayCall(readOnly, t.name))
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
      ProtocolErrorCode.InvalidParams,
      `Unknown tool "${name}". Available tools: ${listedTools(options.readOnly === true)
        .map((t) => t.name)
        .join(', ')}.`,
    )
  try {
    if (!mayCall(options.readOnly === true, name))
      throw new MemError(
        'forbidden',
        `${name} writes, and this server is read-only (--read-only); it offers ${readingTools().join(', ')}.`,
      )
    const payload = (await runOperation(op, ctx, args)) as Record<string, unknown>
    return {content: [{type: 'text', text: op.prose(payload)}], structuredContent: payload}
  } catch (error) {
    return {isError: true, content: [{type: 'text', text: asMemError(error).message}]}
  }
}
