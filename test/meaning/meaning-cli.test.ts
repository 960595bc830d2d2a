import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {existsSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {startEmbeddingServer, type EmbeddingServer} from '../helpers/embedding-server.js'
import {connectMcp} from '../helpers/mcp.js'
import {BIN, childEnv, memAsync, tempHome} from '../helpers/mem.js'

interface SearchPayload {
  count: number
  facts: {id: string; content: string; by_meaning?: true; matched?: unknown[]}[]
  meaning?: {used: boolean; pending: number; why?: string}
}

/**
 * Meaning through the real binary and the real MCP server, with the vectors from an
 * OpenAI-compatible endpoint the test starts (its "model" knows that espresso is coffee and a
 * bicycle a bike: test/helpers/embedding-server.ts). The model shipped with mem is tested the
 * same way in meaning-local.test.ts.
 */
describe('meaning: mem meaning, mem embed and search with meaning on', function () {
  this.timeout(60_000)
  let server: EmbeddingServer
  let home: string
  let cleanup: () => void

  before(async () => {
    server = await startEmbeddingServer()
  })
  after(async () => {
    await server.close()
  })
  beforeEach(() => {
    ;({home, cleanup} = tempHome())
    server.mode = {kind: 'normal'}
  })
  afterEach(() => cleanup())

  // Never spawnSync: the endpoint answers from this very process.
  const run = (args: string[], env: Record<string, string | undefined> = {}) => memAsync(home, args, {env})
  const search = async (query: string, env: Record<string, string | undefined> = {}) => {
    const r = await run(['search', query, '--json'], env)
    assert.equal(r.code, 0, r.stderr)
    return JSON.parse(r.stdout) as SearchPayload
  }
  const turnOn = async () => {
    const r = await run(['meaning', 'on', '--endpoint', server.url, '--model', 'bag-of-words'])
    assert.equal(r.code, 0, r.stderr)
  }
  const addFacts = async () => {
    for (const content of [
      'Bob drinks a double espresso every morning',
      'Carol rides her bicycle to the office',
      'The billing service runs on PostgreSQL 16',
    ])
      assert.equal((await run(['add', content])).code, 0)
  }

  it('is off by default, and with it off search prints exactly what it printed before meaning existed', async () => {
    await addFacts()
    assert.match((await run(['meaning'])).stdout, /^Meaning is off \(the default\)\./)
    const plain = await run(['search', 'billing', '--json'])
    assert.equal(JSON.parse(plain.stdout).meaning, undefined)
    // Turned on and off again: the same bytes as never having turned it on.
    await turnOn()
    assert.equal((await run(['meaning', 'off'])).code, 0)
    assert.equal((await run(['search', 'billing', '--json'])).stdout, plain.stdout)
    assert.equal(
      (await run(['search', 'billing'])).stdout,
      (await run(['search', 'billing'], {MEM_MEANING: 'off'})).stdout,
    )
  })

  it('mem meaning on writes a private settings file naming the endpoint; MEM_MEANING overrides it for one process', async () => {
    await turnOn()
    const path = join(home, 'meaning.json')
    assert.equal(statSync(path).mode & 0o777, 0o600)
    const shown = JSON.parse((await run(['meaning', '--json'])).stdout)
    assert.deepEqual(shown, {
      meaning: 'on',
      from: 'home',
      embedder: {backend: 'endpoint', url: server.url, model: 'bag-of-words', id: 'endpoint:bag-of-words'},
    })
    assert.equal(JSON.parse((await run(['meaning', '--json'], {MEM_MEANING: 'off'})).stdout).meaning, 'off')
    assert.equal(JSON.parse((await run(['meaning', '--json'], {MEM_MEANING: 'off'})).stdout).from, 'env')
    // Off keeps the endpoint, so that on again uses it.
    await run(['meaning', 'off'])
    await run(['meaning', 'on'])
    assert.equal(JSON.parse((await run(['meaning', '--json'])).stdout).embedder.backend, 'endpoint')
  })

  it('refuses bad settings with the words of the command line, and changes nothing', async () => {
    for (const [args, message] of [
      [['meaning', 'on', '--endpoint', 'ftp://example.com', '--model', 'm'], /--endpoint must be an http/],
      [
        ['meaning', 'on', '--endpoint', 'http://user:pw@localhost/v1', '--model', 'm'],
        /must not hold a user or password/,
      ],
      [['meaning', 'on', '--endpoint', 'http://localhost/v1'], /--endpoint needs --model/],
      [['meaning', 'on', '--model', 'm'], /give both/],
      [['meaning', 'off', '--endpoint', 'http://localhost/v1', '--model', 'm'], /go with "mem meaning on"/],
      [['meaning', 'maybe'], /Expected maybe to be one of: on, off/],
    ] as const) {
      const r = await run([...args])
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`)
      assert.match(r.stderr, message)
      assert.equal(existsSync(join(home, 'meaning.json')), false)
    }
    const bad = await run(['search', 'x'], {MEM_MEANING: 'yes'})
    assert.equal(bad.code, 2)
    assert.match(bad.stderr, /MEM_MEANING="yes": it takes "on" or "off"/)
  })

  it('says facts wait for vectors until mem embed makes them, then finds facts by meaning alone, marked', async () => {
    await turnOn()
    await addFacts()
    const before = await search('coffee')
    assert.deepEqual(before.meaning, {used: false, pending: 3, why: 'no fact has its vector yet'})
    assert.equal(before.count, 0)
    assert.match((await run(['search', 'coffee'])).stdout, /3 facts still without vectors \(mem embed makes them\)/)

    const embedded = await run(['embed', '--json'])
    assert.equal(embedded.code, 0, embedded.stderr)
    assert.deepEqual(JSON.parse(embedded.stdout), {
      agents: [{agent_id: 'default', embedded: 3, pending: 0}],
      stopped: false,
    })
    const vectors = join(home, 'agents', 'default', 'cache', 'vectors.bin')
    assert.equal(statSync(vectors).mode & 0o777, 0o600)

    const after = await search('coffee')
    assert.deepEqual(after.meaning, {used: true, pending: 0})
    assert.deepEqual(
      after.facts.map((f) => [f.content, f.by_meaning]),
      [['Bob drinks a double espresso every morning', true]],
    )
    const prose = await run(['search', 'coffee', '--explain'])
    assert.match(
      prose.stdout,
      /1\. Bob drinks a double espresso every morning \(id \S+; by meaning\)\n {3}matched no word: found by meaning/,
    )
    // A word match is not marked.
    const words = await search('billing postgresql')
    assert.equal(words.facts[0]!.content, 'The billing service runs on PostgreSQL 16')
    assert.equal(words.facts[0]!.by_meaning, undefined)
    // Embedding again has nothing to do.
    assert.deepEqual(JSON.parse((await run(['embed', '--json'])).stdout).agents[0], {
      agent_id: 'default',
      embedded: 0,
      pending: 0,
    })
  })

  it('falls back to words, and says why, when the endpoint is down or slow; the search still succeeds', async () => {
    await turnOn()
    await addFacts()
    assert.equal((await run(['embed'])).code, 0)
    server.mode = {kind: 'status', status: 500, message: 'model crashed'}
    const failed = await search('billing')
    assert.equal(failed.meaning?.used, false)
    assert.match(failed.meaning?.why ?? '', /500/)
    assert.equal(failed.facts[0]!.content, 'The billing service runs on PostgreSQL 16')
    server.mode = {kind: 'delay', ms: 8000}
    const slow = await search('billing')
    assert.equal(slow.meaning?.used, false)
    assert.match(slow.meaning?.why ?? '', /took longer than 5 s/)
    assert.equal(slow.facts[0]!.content, 'The billing service runs on PostgreSQL 16')
  })

  it('mem embed fails with a clear message, and keeps nothing half-made, when the endpoint refuses', async () => {
    await turnOn()
    await addFacts()
    server.mode = {kind: 'status', status: 401, message: 'bad key'}
    const r = await run(['embed'])
    assert.equal(r.code, 1)
    assert.match(r.stderr, /401/)
    assert.equal(existsSync(join(home, 'agents', 'default', 'cache', 'vectors.bin')), false)
    assert.deepEqual((await search('billing')).meaning?.pending, 3)
  })

  it('sends the key from MEM_EMBED_KEY and never shows it, even when the endpoint echoes it', async () => {
    await turnOn()
    await addFacts()
    const key = 'sk-test-4f9a1c2e7b'
    server.mode = {kind: 'status', status: 401, message: `Incorrect API key provided: ${key}`}
    const r = await run(['embed'], {MEM_EMBED_KEY: key})
    assert.equal(server.seen.at(-1)!.authorization, `Bearer ${key}`)
    assert.ok(!r.stdout.includes(key) && !r.stderr.includes(key), r.stderr)
    const s = await run(['search', 'billing', '--json'], {MEM_EMBED_KEY: key})
    assert.ok(!s.stdout.includes(key) && !s.stderr.includes(key))
    assert.ok(!readFileSync(join(home, 'meaning.json'), 'utf8').includes(key))
  })

  it('mem embed stopped by Ctrl-C or killed keeps what it made, and the next run goes on from there', async () => {
    await turnOn()
    const facts = Array.from({length: 64}, (_, i) => ({
      type: 'fact',
      agent_id: 'default',
      id: `01J0000000000000000000${String(i).padStart(4, '0')}`,
      content: `Fact number ${i} about the garden`,
      tags: [],
      created_at: '2024-01-01T00:00:00.000Z',
    }))
    const file = join(home, 'facts.jsonl')
    writeFileSync(
      file,
      [JSON.stringify({type: 'header', format: 'mem.export', version: 1}), ...facts.map((f) => JSON.stringify(f))].join(
        '\n',
      ) + '\n',
    )
    assert.equal((await run(['import', file])).code, 0)
    // Each batch of 16 takes 400 ms: the run is stopped after its first batch or two.
    server.mode = {kind: 'delay', ms: 400}
    for (const signal of ['SIGINT', 'SIGKILL'] as const) {
      const child = spawn(process.execPath, [BIN, 'embed', '--json'], {env: {...childEnv(home), MEM_MEANING: 'on'}})
      let stdout = ''
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
      await new Promise((resolve) => setTimeout(resolve, 900))
      child.kill(signal)
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
      if (signal === 'SIGINT') {
        assert.equal(code, 130)
        const report = JSON.parse(stdout) as {agents: {embedded: number; pending: number}[]; stopped: boolean}
        assert.equal(report.stopped, true)
        assert.ok(report.agents[0]!.embedded > 0 && report.agents[0]!.pending > 0, stdout)
      }
    }
    const before = (await search('garden')).meaning!.pending
    assert.ok(before > 0 && before < 64, String(before))
    server.mode = {kind: 'normal'}
    const rest = JSON.parse((await run(['embed', '--json'])).stdout) as {agents: {embedded: number; pending: number}[]}
    assert.deepEqual(rest.agents[0], {agent_id: 'default', embedded: before, pending: 0})
    assert.deepEqual((await search('garden')).meaning, {used: true, pending: 0})
  })

  it('with meaning off, mem embed says how to turn it on', async () => {
    await addFacts()
    const r = await run(['embed'])
    assert.equal(r.code, 2)
    assert.match(r.stderr, /meaning is off: turn it on with "mem meaning on"/)
  })

  it('an MCP server embeds new facts in the background and memory_search reports it in the output schema', async () => {
    await turnOn()
    const session = await connectMcp(home)
    try {
      const tool = session.tools.find((t) => t.name === 'memory_search')!
      const props = (tool.outputSchema as {properties: Record<string, unknown>}).properties
      assert.ok('meaning' in props)
      for (const content of ['Carol rides her bicycle to the office', 'Lunch is at noon in the canteen'])
        assert.notEqual((await session.call('memory_add', {content})).isError, true)
      let payload: SearchPayload | undefined
      for (let i = 0; i < 100; i++) {
        const r = await session.call('memory_search', {query: 'bike'})
        assert.notEqual(r.isError, true)
        payload = r.structuredContent as unknown as SearchPayload
        if (payload.meaning?.used === true && payload.meaning.pending === 0) break
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      assert.deepEqual(payload!.meaning, {used: true, pending: 0})
      assert.deepEqual(
        payload!.facts.map((f) => [f.content, f.by_meaning]),
        [['Carol rides her bicycle to the office', true]],
      )
    } finally {
      await session.close()
    }
    // The server kept what it made: a CLI search needs no embedding of its own.
    assert.deepEqual((await search('bike')).meaning, {used: true, pending: 0})
  })
})
