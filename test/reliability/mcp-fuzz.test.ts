import assert from 'node:assert/strict'
import {spawn, type ChildProcessWithoutNullStreams} from 'node:child_process'

import fc from 'fast-check'

import {BIN, childEnv, tempHome} from '../helpers/mem.js'

interface Reply {
  id: unknown
  result?: {isError?: boolean; structuredContent?: unknown; content?: unknown[]}
  error?: {code: number; message: string}
}

/**
 * `mem mcp serve` spoken to in raw bytes, so that input no SDK client would send can be sent.
 * Every line the server writes must be a JSON-RPC message; replies are matched by id.
 */
class RawServer {
  readonly child: ChildProcessWithoutNullStreams
  readonly nullReplies: Reply[] = []
  stderr = ''
  readonly replies = new Map<number, Reply>()
  private readonly waiting = new Map<number, {resolve: (reply: Reply) => void; reject: (error: Error) => void}>()
  private buffer = ''
  private nextId = 1000

  constructor(home: string) {
    this.child = spawn(process.execPath, [BIN, 'mcp', 'serve'], {env: childEnv(home)})
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => this.receive(chunk))
    this.child.stderr.setEncoding('utf8').on('data', (d: string) => (this.stderr += d))
    this.child.once('exit', (code) => {
      for (const w of this.waiting.values())
        w.reject(new Error(`the server exited (${code}) before answering: ${this.stderr}`))
    })
  }

  private receive(chunk: string): void {
    this.buffer += chunk
    const lines = this.buffer.split('\n')
    this.buffer = lines.pop()!
    for (const line of lines) {
      const reply = JSON.parse(line) as Reply
      assert.equal((reply as {jsonrpc?: string}).jsonrpc, '2.0', `not a JSON-RPC message: ${line.slice(0, 200)}`)
      if (reply.id === null) this.nullReplies.push(reply)
      else {
        this.replies.set(reply.id as number, reply)
        this.waiting.get(reply.id as number)?.resolve(reply)
      }
    }
  }

  write(bytes: string | Buffer): void {
    this.child.stdin.write(bytes)
  }

  /** Sends a request and returns its id without waiting. */
  send(method: string, params?: unknown): number {
    const id = this.nextId++
    this.write(`${JSON.stringify({jsonrpc: '2.0', id, method, ...(params === undefined ? {} : {params})})}\n`)
    return id
  }

  request(method: string, params?: unknown): Promise<Reply> {
    return this.sendRaw(this.nextId++, (id) =>
      JSON.stringify({jsonrpc: '2.0', id, method, ...(params === undefined ? {} : {params})}),
    )
  }

  sendRaw(id: number, line: (id: number) => string): Promise<Reply> {
    const reply = new Promise<Reply>((resolve, reject) => this.waiting.set(id, {resolve, reject}))
    this.write(`${line(id)}\n`)
    return reply
  }

  /** A valid request after anything: the proof that the server still serves. */
  async alive(): Promise<void> {
    const reply = await this.request('ping')
    assert.deepEqual(reply.result, {})
  }

  async close(): Promise<void> {
    const exited = new Promise((resolve) => this.child.once('exit', resolve))
    this.child.stdin.end()
    await exited
  }
}

const deepArray = '['.repeat(100_000) + ']'.repeat(100_000)
const deepObject = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)

/** Lines JSON-RPC says must be answered with an error whose id is null. */
const unreadable: {name: string; line: string | Buffer; code: number}[] = [
  {name: 'broken JSON', line: '{"jsonrpc": "2.0", "id": 1, "method": ', code: -32700},
  {name: 'not JSON at all', line: 'hello server', code: -32700},
  {name: 'NUL and invalid UTF-8 bytes', line: Buffer.from([0x00, 0x01, 0xff, 0xfe, 0x7b]), code: -32700},
  {name: '2 MB of garbage (just under the 2 MiB message limit)', line: 'x'.repeat(2_000_000), code: -32700},
  {name: 'an empty batch', line: '[]', code: -32600},
  {name: 'a number', line: '42', code: -32600},
  {name: 'null', line: 'null', code: -32600},
  {name: 'an empty object', line: '{}', code: -32600},
  {name: 'an id but no method', line: '{"jsonrpc":"2.0","id":1}', code: -32600},
  {name: 'JSON-RPC 1.0', line: '{"jsonrpc":"1.0","id":5,"method":"tools/list"}', code: -32600},
  {name: 'an object as id', line: '{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}', code: -32600},
  {name: 'a method that is a number', line: '{"jsonrpc":"2.0","id":9,"method":7}', code: -32600},
  {name: '100,000-deep nested array', line: deepArray, code: -32600},
  {name: '100,000-deep nested object', line: deepObject, code: -32600},
]

describe('MCP server fuzzing with malformed JSON-RPC (raw bytes to a real mem mcp serve)', function () {
  this.timeout(300_000)
  let home: ReturnType<typeof tempHome>
  let server: RawServer

  before(async () => {
    home = tempHome()
    server = new RawServer(home.home)
    const init = await server.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: {name: 'fuzz', version: '1'},
    })
    assert.ok(init.result)
    server.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
  })
  after(async () => {
    await server.close()
    home.cleanup()
  })

  for (const {name, line, code} of unreadable) {
    it(`${name}: answered with error ${code} (id null), then the next request is served`, async () => {
      const before = server.nullReplies.length
      server.write(line)
      server.write('\n')
      await server.alive()
      assert.deepEqual(
        server.nullReplies.slice(before).map((r) => r.error?.code),
        [code],
      )
    })
  }

  it('requests with wrong-typed params get an Invalid params reply with their id, saying what is wrong', async () => {
    for (const [params, message] of [
      [undefined, /^Invalid params: tools\/call needs the tool's name in "name"\.$/],
      [{name: 5}, /^Invalid params: tools\/call "name" must be a string, not a number\.$/],
      [{name: 'memory_add', arguments: 'str'}, /"arguments" must be an object .*, not a string\.$/],
      [{name: 'memory_add', arguments: [1]}, /"arguments" must be an object .*, not an array\.$/],
      [{name: 'memory_add', arguments: 42}, /"arguments" must be an object .*, not a number\.$/],
      [{name: 'memory_add', arguments: null}, /"arguments" must be an object .*, not null\.$/],
      [{name: 'no_such_tool', arguments: {}}, /^Unknown tool "no_such_tool"/],
    ] as const) {
      const reply = await server.request('tools/call', params)
      assert.ok(reply.error, `tools/call ${JSON.stringify(params)} should be an error`)
      assert.equal(reply.error.code, -32602, reply.error.message)
      assert.match(reply.error.message, message)
    }
    assert.equal((await server.request('no/such/method')).error?.code, -32601)
    await server.alive()
  })

  it('params that are not an object make the whole message invalid: an Invalid Request reply', async () => {
    for (const params of ['str', 5, [], null, true]) {
      const before = server.nullReplies.length
      const id = server.send('tools/call', params)
      await server.alive()
      const answered =
        server.replies.get(id)?.error !== undefined ||
        server.nullReplies.slice(before).some((r) => r.error?.code === -32600)
      assert.ok(answered, `tools/call with params ${JSON.stringify(params)} got no error reply`)
    }
  })

  it('a checkpoint nested 100,000 deep and oversized content are refused as tool errors', async () => {
    for (const args of [
      `{"state":${deepObject}}`,
      `{"state":{},"messages":${deepArray}}`,
      `{"content":"${'x'.repeat(1_000_000)}"}`,
    ]) {
      const tool = args.startsWith('{"content"') ? 'memory_add' : 'checkpoint_save'
      const r = await server.sendRaw(
        77_000 + args.length,
        (id) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${tool}","arguments":${args}}}`,
      )
      assert.equal(r.result?.isError, true)
      assert.equal(r.result?.structuredContent, undefined)
    }
    await server.alive()
  })

  it('any line at all (property-based) leaves the server answering', async () => {
    const line = fc.oneof(
      fc.string({unit: 'binary', maxLength: 200}),
      fc.json({maxDepth: 4}),
      fc
        .record(
          {
            jsonrpc: fc.oneof(fc.constant('2.0'), fc.jsonValue()),
            id: fc.jsonValue(),
            method: fc.oneof(fc.constantFrom('tools/call', 'tools/list', 'initialize', 'ping'), fc.jsonValue()),
            params: fc.jsonValue(),
          },
          {requiredKeys: []},
        )
        .map((o) => JSON.stringify(o)),
    )
    await fc.assert(
      fc.asyncProperty(line, async (text) => {
        server.write(`${text}\n`)
        await server.alive()
      }),
      {numRuns: 300},
    )
  })

  it('tools called with arguments of any type answer with a result or an error, never silence', async () => {
    const tools = fc.constantFrom(
      'memory_search',
      'memory_add',
      'checkpoint_save',
      'checkpoint_resume',
      'memory_reflect',
    )
    await fc.assert(
      fc.asyncProperty(
        tools,
        fc.oneof(
          fc.anything({maxDepth: 4}),
          fc.dictionary(
            fc.constantFrom(
              'agent_id',
              'content',
              'query',
              'state',
              'tags',
              'action',
              'fact_id',
              'fact_ids',
              'limit',
              'messages',
              'on_missing',
            ),
            fc.anything({maxDepth: 3}),
          ),
        ),
        async (name, args) => {
          const reply = await server.request('tools/call', {name, arguments: args})
          if (reply.error) return
          assert.ok(reply.result)
          if (reply.result.isError) assert.equal(reply.result.structuredContent, undefined)
          else assert.ok(reply.result.structuredContent)
        },
      ),
      {numRuns: 300},
    )
    await server.alive()
  })

  it('logs nothing it was sent', () => {
    assert.doesNotMatch(server.stderr, /hello server|xxxxxxxx/)
  })
})
