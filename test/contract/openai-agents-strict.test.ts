import assert from 'node:assert/strict'

import {importInstalled} from '../helpers/installed-client.js'
import {BIN, childEnv, tempHome} from '../helpers/mem.js'

/**
 * The SDK is installed by the test itself, at this version (test/helpers/installed-client.ts):
 * it pulls in `openai`, whose package asks for a newer Node than mem's minimum, and is too large
 * for every contributor's install. The parts of its API the test uses:
 */
const AGENTS_SDK = '0.20.0'
interface FunctionTool {
  name: string
  strict: boolean
  parameters: {required: string[]; properties: Record<string, {type?: unknown; anyOf?: {type?: unknown}[]}>}
  invoke: (context: unknown, input: string) => Promise<unknown>
}
interface McpServer {
  connect: () => Promise<void>
  listTools: () => Promise<{name: string; inputSchema: {required?: string[]}}[]>
  close: () => Promise<void>
}
interface AgentsSdk {
  MCPServerStdio: new (options: {
    name: string
    command: string
    args: string[]
    env: Record<string, string>
  }) => McpServer
  RunContext: new () => unknown
  getAllMcpTools: (options: {mcpServers: McpServer[]; convertSchemasToStrict: boolean}) => Promise<unknown[]>
}

/**
 * OpenAI's Agents SDK converts MCP tool schemas to its strict mode (every key required, nulls
 * for the ones left out, no open objects) when asked, and falls back to a plain schema for a
 * tool it cannot convert. Every advertised input schema goes through that real conversion, over
 * a real stdio connection to the built server, and the converted tools are called as a model in
 * strict mode calls them.
 */
describe("the advertised input schemas through OpenAI's Agents SDK strict mode", () => {
  let home: ReturnType<typeof tempHome>
  let sdk: AgentsSdk
  let server: McpServer
  let tools: FunctionTool[]

  before(async function () {
    // The first run installs the SDK.
    this.timeout(600_000)
    sdk = await importInstalled<AgentsSdk>('@openai/agents', AGENTS_SDK)
    const {MCPServerStdio, getAllMcpTools} = sdk
    home = tempHome()
    server = new MCPServerStdio({
      name: 'mem',
      command: process.execPath,
      args: [BIN, 'mcp', 'serve'],
      env: childEnv(home.home) as Record<string, string>,
    })
    await server.connect()
    tools = (await getAllMcpTools({mcpServers: [server], convertSchemasToStrict: true})) as FunctionTool[]
  })
  after(async () => {
    await server.close()
    home.cleanup()
  })

  const tool = (name: string): FunctionTool => tools.find((t) => t.name === name)!
  const call = async (name: string, args: Record<string, unknown>): Promise<string> => {
    const out = (await tool(name).invoke(new sdk.RunContext(), JSON.stringify(args))) as unknown
    return typeof out === 'string' ? out : JSON.stringify(out)
  }

  it('converts every tool whose input has no free-form object to strict mode', () => {
    assert.deepEqual(
      tools.map((t) => [t.name, t.strict]),
      [
        ['memory_search', true],
        ['memory_add', true],
        // `state` (and each of `messages`) is any JSON object the caller chooses, which strict
        // mode cannot say: the SDK offers the tool with its schema as advertised instead.
        ['checkpoint_save', false],
        ['checkpoint_resume', true],
        ['memory_reflect', true],
      ],
    )
  })

  it('makes every key required and each optional one nullable itself, from the plain types mem advertises', async () => {
    // mem advertises optional inputs with one plain type (test/contract/optional-inputs.test.ts);
    // strict mode's "send null for a key left out" is the SDK's own conversion, not mem's schema.
    const advertised = await server.listTools()
    for (const t of tools.filter((t) => t.strict)) {
      const required = advertised.find((a) => a.name === t.name)!.inputSchema.required ?? []
      assert.deepEqual([...t.parameters.required].sort(), Object.keys(t.parameters.properties).sort(), t.name)
      for (const [key, property] of Object.entries(t.parameters.properties)) {
        const types = property.anyOf?.map((branch) => branch.type) ?? [property.type]
        assert.equal(types.includes('null'), !required.includes(key), `${t.name}.${key}: ${JSON.stringify(types)}`)
      }
    }
  })

  it('the strict tools work with every left-out argument sent as null, as strict mode sends them', async () => {
    assert.match(
      await call('memory_add', {
        content: 'Prefers pnpm',
        tags: null,
        agent_id: null,
        thread: null,
        allow_duplicate: null,
      }),
      /Stored fact/,
    )
    const found = await call('memory_search', {
      query: 'pnpm',
      agent_id: null,
      limit: null,
      tags: null,
      since: null,
      until: null,
      as_you_type: null,
    })
    assert.match(found, /Found 1 fact/)
    assert.match(
      await call('checkpoint_save', {state: {step: 3, todo: ['ship']}, messages: [{role: 'user', content: 'hi'}]}),
      /Saved checkpoint/,
    )
    assert.match(
      await call('checkpoint_resume', {
        agent_id: null,
        checkpoint_id: null,
        on_missing: null,
        include_messages: true,
        last_messages: null,
      }),
      /Messages: 1/,
    )
    const id = /id (\w{26})/.exec(found)![1]!
    assert.match(
      await call('memory_reflect', {
        action: 'delete',
        fact_id: id,
        fact_ids: null,
        content: null,
        tags: null,
        thread: null,
        reason: null,
        agent_id: null,
      }),
      /Deleted fact/,
    )
  })
})
