import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import type {Client} from '@modelcontextprotocol/client'

import {createToken, post, startHttpServe, type HttpServe} from '../helpers/http.js'
import {connectMcp, connectV2, TRANSPORTS, type McpSession, type Transport, type V2Target} from '../helpers/mcp.js'
import {ROOT, tempHome} from '../helpers/mem.js'
import {validateAgainst} from '../helpers/schema.js'

const MODERN = '2026-07-28' as const
const SNAPSHOT = JSON.parse(readFileSync(join(ROOT, 'test', 'contract', 'tools-list.snapshot.json'), 'utf8')) as {
  tools: {name: string}[]
}

/** The structuredContent of a result checked against the tool's advertised outputSchema, in its declared dialect. */
function assertValid(tools: {name: string; outputSchema?: object}[], tool: string, result: unknown): void {
  const schema = tools.find((t) => t.name === tool)?.outputSchema
  assert.ok(schema, `${tool} advertises an outputSchema`)
  const problem = validateAgainst(schema, (result as {structuredContent: unknown}).structuredContent)
  assert.equal(problem, undefined, `${tool}'s structuredContent against its outputSchema: ${problem}`)
}

/** Where this suite's server is, for a 2.x client. */
function targetOf(transport: Transport, home: string, http: {url: string; token: string} | undefined): V2Target {
  return transport === 'http' ? {url: http!.url, headers: {Authorization: `Bearer ${http!.token}`}} : {home}
}

/** The parts of a tool result both eras must carry alike (the 2026 era adds only `_meta`). */
function contractOf(result: unknown): unknown {
  const {content, structuredContent, isError} = result as Record<string, unknown>
  return {content, structuredContent, isError}
}

describe('both protocol eras: a 2025 client and a 2026-07-28 client of the same server', () => {
  for (const transport of TRANSPORTS) {
    describe(`over ${transport}`, () => {
      let home: {home: string; cleanup: () => void}
      let served: HttpServe | undefined
      let token = ''
      let legacy: McpSession
      let modern: Client

      before(async () => {
        home = tempHome()
        if (transport === 'http') {
          token = createToken(home.home, ['--name', 'eras'])
          served = await startHttpServe(home.home)
          const {connectHttp} = await import('../helpers/http.js')
          legacy = await connectHttp(served.url, token, {Connection: 'close'})
        } else legacy = await connectMcp(home.home)
        modern = await connectV2(targetOf(transport, home.home, served && {url: served.url, token}), MODERN)
      })

      after(async () => {
        await modern?.close()
        await legacy?.close()
        await served?.stop()
        home?.cleanup()
      })

      it('negotiates 2026-07-28 with server/discover, and names mem with its tools', () => {
        assert.equal(modern.getProtocolEra(), 'modern')
        assert.equal(modern.getNegotiatedProtocolVersion(), MODERN)
        assert.equal(modern.getServerVersion()?.name, 'mem')
        assert.ok(modern.getServerCapabilities()?.tools, 'the tools capability')
      })

      it('lists the same tools, in the same order and with the same schemas, as the 2025 era', async () => {
        const {tools} = await modern.listTools()
        assert.deepEqual(
          tools.map((t) => t.name),
          SNAPSHOT.tools.map((t) => t.name),
        )
        assert.deepEqual(JSON.parse(JSON.stringify(tools)), JSON.parse(JSON.stringify(legacy.tools)))
      })

      it('answers a call with the same prose and structuredContent in both eras', async () => {
        const added = await modern.callTool({name: 'memory_add', arguments: {content: 'Carol edits in Neovim'}})
        assert.equal(added.isError, undefined)
        const id = (added.structuredContent as {fact_id: string}).fact_id
        assert.match(id, /^[0-9A-Z]{26}$/)
        const args = {query: 'which editor does Carol use'}
        const fromModern = await modern.callTool({name: 'memory_search', arguments: args})
        const fromLegacy = await legacy.call('memory_search', args)
        assert.deepEqual(contractOf(fromModern), contractOf(fromLegacy))
        const {tools} = await modern.listTools()
        assertValid(tools, 'memory_add', added)
        assertValid(tools, 'memory_search', fromModern)
        const hits = (fromModern.structuredContent as {facts: {id: string}[]}).facts
        assert.deepEqual(
          hits.map((h) => h.id),
          [id],
        )
      })

      it('serves the 2.x client in the 2025 era too, when it opens with initialize', async () => {
        const client = await connectV2(targetOf(transport, home.home, served && {url: served.url, token}), '2025')
        try {
          assert.equal(client.getProtocolEra(), 'legacy')
          const args = {query: 'which editor does Carol use'}
          const result = await client.callTool({name: 'memory_search', arguments: args})
          assertValid((await client.listTools()).tools, 'memory_search', result)
          assert.deepEqual(contractOf(result), contractOf(await legacy.call('memory_search', args)))
        } finally {
          await client.close()
        }
      })

      it('answers every tool with structuredContent its outputSchema accepts, the absence of a checkpoint too', async () => {
        const {tools} = await modern.listTools()
        const call = async (name: string, args: Record<string, unknown>) => {
          const result = await modern.callTool({name, arguments: args})
          assert.equal(result.isError, undefined, `${name}: ${JSON.stringify(result.content)}`)
          assertValid(tools, name, result)
          return result.structuredContent as Record<string, unknown>
        }
        const agent = {agent_id: `eras-${transport}`}
        assert.equal((await call('checkpoint_resume', {...agent, on_missing: 'empty'})).found, false)
        const saved = await call('checkpoint_save', {...agent, state: {step: 3, constructor: 'kept'}, label: 'eras'})
        const resumed = await call('checkpoint_resume', {...agent, checkpoint_id: saved.checkpoint_id})
        assert.deepEqual(resumed.state, {step: 3, constructor: 'kept'})
        const added = await call('memory_add', {...agent, content: 'The staging cluster runs on ARM'})
        await call('memory_reflect', {
          ...agent,
          action: 'update',
          fact_id: added.fact_id,
          content: 'Staging runs on ARM',
        })
        assert.equal((await call('memory_search', {...agent, query: 'staging ARM'})).count, 1)
      })

      it('answers a tool error as text with isError and no structuredContent, as in the 2025 era', async () => {
        const args = {action: 'delete', fact_ids: ['01ARZ3NDEKTSV4RRFFQ69G5FAV']}
        const fromModern = await modern.callTool({name: 'memory_reflect', arguments: args})
        assert.equal(fromModern.isError, true)
        assert.equal(fromModern.structuredContent, undefined)
        assert.deepEqual(contractOf(fromModern), contractOf(await legacy.call('memory_reflect', args)))
      })
    })
  }

  describe('over HTTP, what a 2026-07-28 request must carry', () => {
    let home: {home: string; cleanup: () => void}
    let served: HttpServe
    let token = ''
    let reader = ''

    before(async () => {
      home = tempHome()
      token = createToken(home.home, ['--name', 'eras-raw'])
      reader = createToken(home.home, ['--name', 'eras-reader', '--read-only'])
      served = await startHttpServe(home.home)
    })
    after(async () => {
      await served?.stop()
      home?.cleanup()
    })

    const envelope = {
      'io.modelcontextprotocol/protocolVersion': MODERN,
      'io.modelcontextprotocol/clientInfo': {name: 'raw', version: '1'},
      'io.modelcontextprotocol/clientCapabilities': {},
    }
    let nextId = 1
    /**
     * A raw 2026-07-28 request: the envelope in `_meta`, and the Mcp-Method and Mcp-Name headers
     * as the body says (`mcpName` to make them disagree); no Authorization without `bearer`.
     */
    async function rpc<T>(
      bearer: string | undefined,
      method: string,
      params: Record<string, unknown> = {},
      mcpName = params['name'] as string | undefined,
    ): Promise<{status: number; headers: Headers; answer: T}> {
      const headers: Record<string, string> = {
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': MODERN,
        'Mcp-Method': method,
        ...(mcpName === undefined ? {} : {'Mcp-Name': mcpName}),
        ...(bearer === undefined ? {} : {Authorization: `Bearer ${bearer}`}),
      }
      const body = {jsonrpc: '2.0', id: nextId++, method, params: {...params, _meta: envelope}}
      const response = await post(served.url, body, headers)
      return {status: response.status, headers: response.headers, answer: (await response.json()) as T}
    }
    type Failure = {error: {code: number; message: string}}

    it('answers tools/list with resultType and cache fields, and tools in a stable order', async () => {
      type Listed = {result: {resultType: string; ttlMs: number; cacheScope: string; tools: {name: string}[]}}
      const first = (await rpc<Listed>(token, 'tools/list')).answer
      assert.equal(first.result.resultType, 'complete')
      assert.equal(typeof first.result.ttlMs, 'number')
      assert.match(first.result.cacheScope, /^(private|shared)$/)
      const again = (await rpc<Listed>(token, 'tools/list')).answer
      assert.deepEqual(
        again.result.tools.map((t) => t.name),
        first.result.tools.map((t) => t.name),
      )
    })

    it('refuses a call whose Mcp-Name header names another tool than its body, and stores nothing', async () => {
      const add = {name: 'memory_add', arguments: {content: 'never stored'}}
      const {answer} = await rpc<{error?: {code: number}}>(token, 'tools/call', add, 'memory_search')
      assert.ok(answer.error, `an error, got ${JSON.stringify(answer)}`)
      const search = {name: 'memory_search', arguments: {query: 'never stored'}}
      const found = await rpc<{result: {structuredContent: {facts: unknown[]}}}>(token, 'tools/call', search)
      assert.deepEqual(found.answer.result.structuredContent.facts, [])
    })

    it('lists only the reading tools to a read-only token, and refuses a write with 403 as in the 2025 era', async () => {
      const listed = (await rpc<{result: {tools: {name: string}[]}}>(reader, 'tools/list')).answer
      assert.deepEqual(listed.result.tools.map((t) => t.name).sort(), ['checkpoint_resume', 'memory_search'])
      const write = {name: 'memory_add', arguments: {content: 'never stored'}}
      const refused = await rpc<Failure>(reader, 'tools/call', write)
      assert.equal(refused.status, 403)
      assert.match(refused.answer.error.message, /read-only; it may call memory_search and checkpoint_resume/)
    })

    it('answers a call with arguments that are not an object, or an unknown tool, with -32602 saying so', async () => {
      const notObject = (await rpc<Failure>(token, 'tools/call', {name: 'memory_add', arguments: 'a string'})).answer
      assert.equal(notObject.error.code, -32602)
      assert.match(
        notObject.error.message,
        /"arguments" must be an object of the tool's arguments by name, not a string/,
      )
      const unknown = (await rpc<Failure>(token, 'tools/call', {name: 'memory_nope', arguments: {}})).answer
      assert.equal(unknown.error.code, -32602)
      assert.match(unknown.error.message, /Unknown tool "memory_nope"\. Available tools: memory_search, memory_add/)
    })

    it('refuses a 2026-07-28 request without a token with 401, as a 2025 one', async () => {
      const refused = await rpc<unknown>(undefined, 'tools/list')
      assert.equal(refused.status, 401)
      assert.match(refused.headers.get('www-authenticate') ?? '', /resource_metadata=/)
    })
  })
})
