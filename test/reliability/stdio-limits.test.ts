import assert from 'node:assert/strict'
import {execFileSync, spawn, type ChildProcessWithoutNullStreams} from 'node:child_process'
import {once} from 'node:events'

import {BIN, childEnv, mem, tempHome} from '../helpers/mem.js'

/** The stdio server's message limit, the same as the HTTP server's default body limit (2 MiB). */
const LIMIT = 2 * 1024 * 1024

interface Reply {
  jsonrpc: string
  id: unknown
  result?: {isError?: boolean; structuredContent?: unknown}
  error?: {code: number; message: string}
}

/** `mem mcp serve` on stdio, written to in raw bytes over a real pipe; every line it writes is kept. */
class StdioServer {
  readonly child: ChildProcessWithoutNullStreams
  readonly replies: Reply[] = []
  stderr = ''
  private buffer = ''
  private readonly exited: Promise<number | null>
  private readonly waiters: {
    test: (r: Reply) => boolean
    resolve: (r: Reply) => void
    reject: (e: Error) => void
  }[] = []

  constructor(home: string) {
    this.child = spawn(process.execPath, [BIN, 'mcp', 'serve'], {env: childEnv(home)})
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      this.buffer += chunk
      const lines = this.buffer.split('\n')
      this.buffer = lines.pop()!
      for (const line of lines) {
        const reply = JSON.parse(line) as Reply
        this.replies.push(reply)
        for (const w of this.waiters.filter((w) => w.test(reply))) w.resolve(reply)
      }
    })
    this.child.stderr.setEncoding('utf8').on('data', (d: string) => (this.stderr += d))
    this.exited = once(this.child, 'exit').then(([code]) => {
      // A server that exits leaves nothing to wait for: fail at once, with what it said.
      for (const w of this.waiters) w.reject(new Error(`the server exited (${code}) before answering: ${this.stderr}`))
      return code as number | null
    })
  }

  /** Writes bytes, waiting while the pipe is full, as a client streaming a large message would. */
  async write(bytes: string | Buffer): Promise<void> {
    if (!this.child.stdin.write(bytes)) await once(this.child.stdin, 'drain')
  }

  /** The next reply (from now on) that passes `test`. */
  next(test: (r: Reply) => boolean): Promise<Reply> {
    return new Promise((resolve, reject) => this.waiters.push({test, resolve, reject}))
  }

  async request(id: number, method: string, params?: unknown): Promise<Reply> {
    const reply = this.next((r) => r.id === id)
    await this.write(`${JSON.stringify({jsonrpc: '2.0', id, method, ...(params === undefined ? {} : {params})})}\n`)
    return reply
  }

  async initialize(): Promise<void> {
    const reply = await this.request(1, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: {name: 'stdio-limits-test', version: '1'},
    })
    assert.ok(reply.result, JSON.stringify(reply))
    await this.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n')
  }

  /** Proof that the server still serves: a ping and a tool call are both answered. */
  async alive(id: number): Promise<void> {
    assert.deepEqual((await this.request(id, 'ping')).result, {})
    const search = await this.request(id + 1, 'tools/call', {name: 'memory_search', arguments: {query: 'anything'}})
    assert.equal(search.result?.isError, undefined, JSON.stringify(search))
  }

  /** Closes stdin and waits for the process to exit. */
  async end(): Promise<number | null> {
    this.child.stdin.end()
    return this.exited
  }

  kill(): void {
    if (this.child.exitCode === null) this.child.kill()
  }

  /** The resident memory of the server process in bytes, as `ps` reports it (Linux and macOS alike). */
  rss(): number {
    return Number(execFileSync('ps', ['-o', 'rss=', '-p', String(this.child.pid)], {encoding: 'utf8'}).trim()) * 1024
  }
}

/** A ping request whose line is exactly `bytes` long (without its newline), padded in params._meta. */
function pingOfLength(id: number, bytes: number): string {
  const bare = JSON.stringify({jsonrpc: '2.0', id, method: 'ping', params: {_meta: {pad: ''}}})
  const line = JSON.stringify({
    jsonrpc: '2.0',
    id,
    method: 'ping',
    params: {_meta: {pad: 'x'.repeat(bytes - bare.length)}},
  })
  assert.equal(line.length, bytes)
  return line
}

function checkpointCount(home: string): number {
  const r = mem(home, ['checkpoints', '--json'])
  assert.equal(r.code, 0, r.stderr)
  return (JSON.parse(r.stdout) as {total: number}).total
}

describe('mem mcp serve on stdio: a message over the limit, and the end of stdin (real binary, real pipes)', function () {
  this.timeout(120_000)
  let home: string
  let cleanup: () => void
  let server: StdioServer

  beforeEach(async () => {
    ;({home, cleanup} = tempHome())
    server = new StdioServer(home)
  })

  afterEach(() => {
    server.kill()
    cleanup()
  })

  it('a 20 MB message is answered -32000 with its id and the limit, stores nothing, and the server goes on', async () => {
    await server.initialize()
    const huge = JSON.stringify({
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: {name: 'memory_add', arguments: {content: 'x'.repeat(20_000_000)}},
    })
    const reply = server.next((r) => r.id === 7)
    await server.write(`${huge}\n`)
    const {error} = await reply
    assert.equal(error?.code, -32000)
    assert.match(error!.message, /too large.*2097152 bytes \(2 MiB\)/)
    await server.alive(8)
    const added = await server.request(10, 'tools/call', {
      name: 'memory_add',
      arguments: {content: 'after the big one'},
    })
    assert.equal(added.result?.isError, undefined, JSON.stringify(added))
    assert.equal(mem(home, ['list', '--json']).stdout.match(/"content"/g)?.length, 1)
    assert.equal(server.stderr, '')
  })

  it('the id is found after the params too (the order the TypeScript SDK writes), and is null when the line has none', async () => {
    await server.initialize()
    const idLast = `{"method":"tools/call","params":{"name":"memory_add","arguments":{"content":"${'y'.repeat(LIMIT)}","id":99}},"jsonrpc":"2.0","id":"req-12"}`
    const first = server.next((r) => r.error?.code === -32000)
    await server.write(`${idLast}\n`)
    assert.equal((await first).id, 'req-12')

    const garbage = server.next((r) => r.error?.code === -32000)
    await server.write(`{"id":5,${'z'.repeat(LIMIT)}\n`)
    assert.equal((await garbage).id, 5)

    const noId = server.next((r) => r.error?.code === -32000)
    await server.write(`${'[1,'.repeat(LIMIT / 2)}\n`)
    assert.equal((await noId).id, null)
    await server.alive(20)
  })

  it('a message of exactly the limit is read; one byte more is refused', async () => {
    await server.initialize()
    const exact = server.next((r) => r.id === 31)
    await server.write(`${pingOfLength(31, LIMIT)}\n`)
    assert.deepEqual((await exact).result, {})
    const over = server.next((r) => r.id === 32)
    await server.write(`${pingOfLength(32, LIMIT + 1)}\n`)
    assert.equal((await over).error?.code, -32000)
  })

  it('memory stays bounded while a 256 MiB line streams in: it is dropped as it comes, not held', async () => {
    await server.initialize()
    const chunk = Buffer.alloc(1024 * 1024, 'a')
    await server.write('{"jsonrpc":"2.0","id":40,"method":"ping","params":{"pad":"')
    let peak = 0
    for (let i = 0; i < 256; i++) {
      await server.write(chunk)
      if (i % 32 === 31) peak = Math.max(peak, server.rss())
    }
    const reply = server.next((r) => r.id === 40)
    await server.write('"}}\n')
    assert.equal((await reply).error?.code, -32000)
    assert.ok(
      peak < 200 * 1024 * 1024,
      `the server held ${Math.round(peak / 1024 / 1024)} MiB while the line streamed in`,
    )
    await server.alive(41)
  })

  it('at the end of stdin every request already sent is answered before the process exits 0', async () => {
    // All in one write with stdin closed behind it, as a client piping a script does: nothing waits for an answer.
    const ids = [50, 51, 52, 53, 54]
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 't', version: '1'}},
      },
      {jsonrpc: '2.0', method: 'notifications/initialized'},
      ...ids.map((id) => ({
        jsonrpc: '2.0',
        id,
        method: 'tools/call',
        params: {name: 'checkpoint_save', arguments: {state: {step: id}}},
      })),
    ]
    await server.write(lines.map((line) => `${JSON.stringify(line)}\n`).join(''))
    const code = await server.end()
    assert.equal(code, 0, server.stderr)
    for (const id of [1, ...ids]) {
      const reply = server.replies.find((r) => r.id === id)
      assert.ok(reply, `request ${id} was not answered before the server exited`)
      assert.ok(reply.result && reply.result.isError === undefined, JSON.stringify(reply))
    }
    assert.equal(checkpointCount(home), 5)
  })
})
