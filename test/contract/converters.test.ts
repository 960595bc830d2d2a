import assert from 'node:assert/strict'

import {importInstalled} from '../helpers/installed-client.js'
import {serveDuringSuite} from '../helpers/mcp.js'

/**
 * The adapter and its peer, LangChain's core, are installed by the test itself at these versions
 * (test/helpers/installed-client.ts), not by every contributor's install. The part of its API the
 * test uses:
 */
const ADAPTERS = '1.1.4'
const LANGCHAIN_CORE = '1.4.0'
interface Adapters {
  loadMcpTools: (
    server: string,
    client: never,
    options: {throwOnLoadError: boolean},
  ) => Promise<{name: string; invoke: (args: Record<string, unknown>) => Promise<unknown>}[]>
}

/**
 * Every advertised tool schema goes through a real client-side converter, LangChain's MCP
 * adapter, and the calls a model would make go through the tools it built, with the adapter's
 * own argument checks.
 */
describe("the advertised schemas through LangChain's MCP adapter", () => {
  const suite = serveDuringSuite()
  let loadMcpTools: Adapters['loadMcpTools']
  before(async function () {
    // The first run installs the adapter.
    this.timeout(600_000)
    ;({loadMcpTools} = await importInstalled<Adapters>('@langchain/mcp-adapters', ADAPTERS, [
      `@langchain/core@${LANGCHAIN_CORE}`,
    ]))
  })

  it('converts all five tools and calls them as a model would, left-out arguments left out', async () => {
    const tools = await loadMcpTools('mem', suite.mcp.client! as never, {throwOnLoadError: true})
    assert.deepEqual(tools.map((t) => t.name).sort(), [
      'checkpoint_resume',
      'checkpoint_save',
      'memory_add',
      'memory_reflect',
      'memory_search',
    ])
    const call = async (name: string, args: Record<string, unknown>): Promise<string> => {
      const tool = tools.find((t) => t.name === name)!
      const out = (await tool.invoke(args)) as unknown
      return typeof out === 'string' ? out : JSON.stringify(out)
    }
    // Optional arguments of every kind the schemas hold: an array, an integer, a boolean, an enum.
    assert.match(
      await call('memory_add', {content: 'Prefers pnpm', tags: ['tools'], allow_duplicate: true}),
      /Stored fact/,
    )
    assert.match(await call('memory_search', {query: 'pnpm', limit: 5, tags: ['tools']}), /Found 1 fact/)
    const state = {step: 3, todo: ['ship'], nested: {ok: true}}
    assert.match(
      await call('checkpoint_save', {state, messages: [{role: 'user', content: 'hi'}, 'a plain string turn']}),
      /Saved checkpoint/,
    )
    const resumed = await call('checkpoint_resume', {include_messages: true, last_messages: 2, on_missing: 'error'})
    const payload = (JSON.parse(resumed) as {structuredContent: {state: unknown; messages: unknown[]}})
      .structuredContent
    assert.deepEqual(payload.state, state)
    assert.deepEqual(payload.messages, [{role: 'user', content: 'hi'}, 'a plain string turn'])
    const found = JSON.parse(
      JSON.stringify((await suite.mcp.call('memory_search', {query: 'pnpm'})).structuredContent),
    ) as {facts: {id: string}[]}
    assert.match(await call('memory_reflect', {action: 'delete', fact_id: found.facts[0]!.id}), /Deleted fact/)
  })

  it('declares free-form objects and any-JSON items with a keyword, never as an empty schema', () => {
    const empty: string[] = []
    const walk = (node: unknown, path: string): void => {
      if (typeof node !== 'object' || node === null) return
      for (const [key, child] of Object.entries(node)) {
        if (
          ['items', 'additionalProperties'].includes(key) &&
          typeof child === 'object' &&
          child !== null &&
          Object.keys(child).length === 0
        )
          empty.push(`${path}.${key}`)
        if (
          key === 'type' &&
          child === 'object' &&
          !('properties' in node) &&
          !('additionalProperties' in node) &&
          !('anyOf' in node)
        )
          empty.push(`${path} (object without properties or additionalProperties)`)
        walk(child, `${path}.${key}`)
      }
    }
    for (const tool of suite.mcp.tools) {
      walk(tool.inputSchema, `${tool.name}.input`)
      walk(tool.outputSchema, `${tool.name}.output`)
    }
    assert.deepEqual(empty, [])
  })
})
