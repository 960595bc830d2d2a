import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {request} from 'node:https'
import {join} from 'node:path'

import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js'

import {connectHttp, createToken, post, rawPost, startHttpServe, type HttpServe} from '../helpers/http.js'
import {connectMcp, openV2Session} from '../helpers/mcp.js'
import {mem, ROOT, tempHome} from '../helpers/mem.js'
import {validateAgainst} from '../helpers/schema.js'
import {snapshotTree} from '../helpers/tree.js'

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {protocolVersion: '2025-11-25', capabilities: {}, clientInfo: {name: 't', version: '1'}},
}
const search = (query: string) => ({
  jsonrpc: '2.0',
  id: 7,
  method: 'tools/call',
  params: {name: 'memory_search', arguments: {query}},
})

describe('mem mcp serve --http: the transport', function () {
  this.timeout(120_000)
  const temp = tempHome()
  const home = temp.home
  let server: HttpServe
  let token: string
  let auth: Record<string, string>

  before(async () => {
    token = createToken(home, ['--name', 'main'])
    auth = {Authorization: `Bearer ${token}`}
    server = await startHttpServe(home, [
      '--agent',
      'alice',
      '--max-body',
      '4096',
      '--allowed-host',
      'mem.test',
      '--allowed-origin',
      'https://app.example',
    ])
  })

  after(async () => {
    await server?.stop()
    temp.cleanup()
  })

  it('is stateless: no Mcp-Session-Id, and any request works without an initialize before it', async () => {
    const init = await post(server.url, initialize, auth)
    assert.equal(init.status, 200)
    assert.equal(init.headers.get('mcp-session-id'), null)
    const res = await post(server.url, search('anything'), auth)
    assert.equal(res.status, 200)
    assert.equal(res.headers.get('mcp-session-id'), null)
    assert.equal(
      ((await res.json()) as {result: {structuredContent: {count: number}}}).result.structuredContent.count,
      0,
    )
  })

  it('answers JSON or an SSE stream as the client prefers, and the SDK client reads both', async () => {
    const json = await post(server.url, search('x'), auth)
    assert.match(json.headers.get('content-type') ?? '', /^application\/json/)
    const sse = await post(server.url, search('x'), {...auth, Accept: 'text/event-stream, application/json'})
    assert.match(sse.headers.get('content-type') ?? '', /^text\/event-stream/)
    assert.match(await sse.text(), /^event: message\ndata: \{.*"structuredContent"/m)

    // The official client, made to prefer the stream.
    const preferStream: typeof fetch = (url, init) => {
      const headers = new Headers(init?.headers)
      headers.set('accept', 'text/event-stream, application/json')
      return fetch(url, {...init, headers})
    }
    const client = new Client({name: 'sse', version: '1'})
    await client.connect(
      new StreamableHTTPClientTransport(new URL(server.url), {requestInit: {headers: auth}, fetch: preferStream}),
    )
    const added = await client.callTool({name: 'memory_add', arguments: {content: 'Streams are fine too'}})
    assert.equal((added.structuredContent as {agent_id: string}).agent_id, 'alice')
    await client.close()
  })

  it('serves the 2.x SDK client: every tool, payloads valid against the advertised schemas', async () => {
    const v2 = await openV2Session({url: server.url, headers: {Authorization: `Bearer ${token}`}}, '2025')
    try {
      assert.deepEqual(
        v2.tools.map((t) => t.name),
        ['memory_search', 'memory_add', 'checkpoint_save', 'checkpoint_resume', 'memory_reflect'],
      )
      const check = async (name: string, args: Record<string, unknown>) => {
        const r = await v2.call(name, args)
        assert.notEqual(r.isError, true, JSON.stringify(r.content))
        const schema = v2.tools.find((t) => t.name === name)!.outputSchema!
        assert.equal(validateAgainst(schema, r.structuredContent), undefined)
        return r.structuredContent as Record<string, string>
      }
      const added = await check('memory_add', {content: 'The 2.x client stores facts', tags: ['v2']})
      await check('memory_search', {query: '2.x client'})
      const saved = await check('checkpoint_save', {state: {v: 2}})
      assert.equal((await check('checkpoint_resume', {})).id, saved.checkpoint_id)
      await check('memory_reflect', {action: 'update', fact_id: added.fact_id, content: 'The 2.x client revises facts'})
    } finally {
      await v2.close()
    }
  })

  it('tools/list over HTTP is the checked-in contract snapshot', async () => {
    const session = await connectHttp(server.url, token)
    const snapshot = readFileSync(join(ROOT, 'test', 'contract', 'tools-list.snapshot.json'), 'utf8')
    assert.equal(`${JSON.stringify({tools: session.tools}, null, 2)}\n`, snapshot)
    await session.close()
  })

  it('refuses a foreign Host or Origin with 403, and accepts loopback names and the ones allowed by flag', async () => {
    const before = snapshotTree(home)
    const add = {
      jsonrpc: '2.0',
      id: 3,
      method: 'tools/call',
      params: {name: 'memory_add', arguments: {content: 'rebound'}},
    }
    for (const headers of <Record<string, string>[]>[
      {Host: 'evil.example'},
      {Origin: 'http://evil.example'},
      {Origin: 'http://localhost.evil.example'},
      {Origin: 'null'},
    ]) {
      const res = await rawPost(server.url, add, {...auth, ...headers})
      assert.equal(res.status, 403, JSON.stringify(headers))
    }
    assert.deepEqual(snapshotTree(home), before)
    for (const headers of <Record<string, string>[]>[
      {Host: 'localhost:1'},
      {Host: 'mem.test'},
      {Origin: 'http://127.0.0.1:7411'},
      {Origin: 'https://app.example'},
    ]) {
      const res = await rawPost(server.url, search('x'), {...auth, ...headers})
      assert.equal(res.status, 200, JSON.stringify(headers))
    }
  })

  it('refuses an oversized body with 413 before reading it, and keeps serving', async () => {
    const big = {
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: {name: 'memory_add', arguments: {content: 'x'.repeat(5000)}},
    }
    const res = await post(server.url, big, auth)
    assert.equal(res.status, 413)
    const after = await post(server.url, search('x'), auth)
    assert.equal(after.status, 200)
  })

  it('answers GET /healthz without a token, 405 for other methods on /mcp, 404 elsewhere', async () => {
    const health = await fetch(server.url.replace(/\/mcp$/, '/healthz'))
    assert.equal(health.status, 200)
    assert.deepEqual(await health.json(), {status: 'ok'})
    const get = await fetch(server.url, {headers: auth})
    assert.equal(get.status, 405)
    assert.equal(get.headers.get('allow'), 'POST')
    assert.equal((await fetch(server.url.replace(/\/mcp$/, '/other'), {headers: auth})).status, 404)
  })
})

describe('mem mcp serve --http: limits per token', function () {
  this.timeout(60_000)
  const temp = tempHome()
  let server: HttpServe

  after(async () => {
    await server?.stop()
    temp.cleanup()
  })

  it('a token over its rate gets 429 with Retry-After, and another token is not slowed by it', async () => {
    const greedy = createToken(temp.home, ['--name', 'greedy'])
    const polite = createToken(temp.home, ['--name', 'polite'])
    server = await startHttpServe(temp.home, ['--rate-limit', '60'])
    const statuses = await Promise.all(
      Array.from({length: 20}, () => post(server.url, search('x'), {Authorization: `Bearer ${greedy}`}).then((r) => r)),
    )
    const limited = statuses.filter((r) => r.status === 429)
    assert.ok(
      limited.length >= 10,
      `expected most of 20 requests over a burst of 6 to be limited, got ${limited.length}`,
    )
    assert.match(limited[0]!.headers.get('retry-after') ?? '', /^\d+$/)
    const other = await post(server.url, search('x'), {Authorization: `Bearer ${polite}`})
    assert.equal(other.status, 200)
  })
})

describe('mem mcp serve --read-only', function () {
  this.timeout(60_000)

  for (const transport of ['stdio', 'http'] as const) {
    it(`over ${transport}: lists and runs only the tools that read; a write is a tool error and writes nothing`, async () => {
      const temp = tempHome()
      mem(temp.home, ['add', '--agent', 'default', 'Read-only servers still search'])
      let served: HttpServe | undefined
      const session =
        transport === 'stdio'
          ? await connectMcp(temp.home, {args: ['--read-only']})
          : await (async () => {
              const token = createToken(temp.home)
              served = await startHttpServe(temp.home, ['--read-only'])
              return connectHttp(served.url, token)
            })()
      try {
        assert.deepEqual(
          session.tools.map((t) => t.name),
          ['memory_search', 'checkpoint_resume'],
        )
        assert.equal(
          ((await session.call('memory_search', {query: 'servers'})).structuredContent as {count: number}).count,
          1,
        )
        const before = snapshotTree(temp.home)
        for (const name of ['memory_add', 'checkpoint_save', 'memory_reflect']) {
          const r = await session.call(name, {content: 'x', state: {}, action: 'add'})
          assert.equal(r.isError, true, name)
          assert.match((r.content[0] as {text: string}).text, /read-only/)
        }
        assert.deepEqual(snapshotTree(temp.home), before)
      } finally {
        await session.close()
        await served?.stop()
        temp.cleanup()
      }
    })
  }
})

describe('the help names the tools a server offers', function () {
  this.timeout(60_000)

  it('mem mcp serve names every tool, and --read-only and mem token create --read-only the ones a read-only client is offered', async () => {
    const temp = tempHome()
    const all = await connectMcp(temp.home)
    const reading = await connectMcp(temp.home, {args: ['--read-only']})
    try {
      const words = (names: string[]) => `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`
      const flat = (text: string) => text.replace(/\s+/g, ' ')
      const serveHelp = flat(mem(temp.home, ['mcp', 'serve', '--help']).stdout)
      const tokenHelp = flat(mem(temp.home, ['token', 'create', '--help']).stdout)
      assert.ok(serveHelp.includes(`Serves ${words(all.tools.map((t) => t.name))} over stdio.`), serveHelp)
      const readOnly = words(reading.tools.map((t) => t.name))
      assert.ok(serveHelp.includes(`Offer only the tools that never write (${readOnly}).`), serveHelp)
      assert.ok(tokenHelp.includes(`Allow only ${readOnly}.`), tokenHelp)
    } finally {
      await all.close()
      await reading.close()
      temp.cleanup()
    }
  })
})

describe('mem mcp serve --http: where it listens', function () {
  this.timeout(60_000)

  it('refuses an address beyond loopback without --allow-remote, and without TLS or --tls-proxy, binding nothing', () => {
    const temp = tempHome()
    try {
      const plain = mem(temp.home, ['mcp', 'serve', '--http', '--host', '0.0.0.0', '--port', '0'])
      assert.equal(plain.code, 2)
      assert.match(plain.stderr, /--host 0\.0\.0\.0 can be reached from other machines; add --allow-remote/)
      const clear = mem(temp.home, ['mcp', 'serve', '--http', '--host', '0.0.0.0', '--port', '0', '--allow-remote'])
      assert.equal(clear.code, 2)
      assert.match(clear.stderr, /would send tokens in clear: add --tls-cert FILE --tls-key FILE, or --tls-proxy/)
      const stray = mem(temp.home, ['mcp', 'serve', '--allow-remote'])
      assert.equal(stray.code, 2)
      assert.match(stray.stderr, /--allow-remote applies only with --http/)
      // Flags with a default count too when typed: without --http, --port would leave a stdio server waiting.
      const port = mem(temp.home, ['mcp', 'serve', '--port', '8080', '--host=127.0.0.1'])
      assert.equal(port.code, 2)
      assert.equal(port.stderr, 'Error: --port, --host apply only with --http; add --http or leave them out\n')
    } finally {
      temp.cleanup()
    }
  })

  it('a port another server holds is named in the error, and the first server keeps serving', async () => {
    const temp = tempHome()
    const first = await startHttpServe(temp.home)
    try {
      const port = new URL(first.url).port
      const second = mem(temp.home, ['mcp', 'serve', '--http', '--port', port])
      assert.equal(second.code, 1)
      assert.equal(
        second.stderr,
        `Error: could not listen on 127.0.0.1:${port}: another program already listens on that port (EADDRINUSE)\n`,
      )
      assert.equal(first.child.exitCode, null)
    } finally {
      await first.stop()
      temp.cleanup()
    }
  })

  it('serves HTTPS with --tls-cert and --tls-key', async () => {
    const temp = tempHome()
    const cert = join(temp.home, 'cert.pem')
    const key = join(temp.home, 'key.pem')
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
      ],
      {stdio: 'ignore'},
    )
    const served = await startHttpServe(temp.home, ['--tls-cert', cert, '--tls-key', key])
    try {
      assert.match(served.url, /^https:\/\/127\.0\.0\.1:\d+\/mcp$/)
      const status = await new Promise<number>((resolve, reject) => {
        request(served.url.replace(/\/mcp$/, '/healthz'), {ca: readFileSync(cert)}, (res) => {
          res.resume()
          resolve(res.statusCode ?? 0)
        })
          .on('error', reject)
          .end()
      })
      assert.equal(status, 200)
    } finally {
      await served.stop()
      temp.cleanup()
    }
  })
})
