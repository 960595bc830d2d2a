import assert from 'node:assert/strict'

import {createToken, post, startHttpServe, type HttpServe} from '../helpers/http.js'
import {mem, tempHome} from '../helpers/mem.js'
import {stall, startMem, untilWriting} from '../torture/helpers.js'

const call = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: {name, arguments: args},
})

describe('mem mcp serve --http: a request that cannot finish in time', function () {
  this.timeout(60_000)
  const temp = tempHome()
  let server: HttpServe
  let auth: Record<string, string>

  before(async () => {
    auth = {Authorization: `Bearer ${createToken(temp.home, ['--name', 'slow'])}`}
    // The write waits on the agent's lock for up to 20 s, well past the 1 s the request may take.
    server = await startHttpServe(temp.home, ['--agent', 'alice', '--request-timeout', '1'], {
      MEM_LOCK_TIMEOUT_MS: '20000',
    })
    mem(temp.home, ['add', 'Seed fact about the staging cluster', '--agent', 'alice'])
  })

  after(async () => {
    await server?.stop()
    temp.cleanup()
  })

  it('is answered 504 while a stalled writer holds the lock; reads go on, and the write lands once the lock is free', async () => {
    // A CLI writer whose fsync stalls for 4 s holds the agent's lock all that time.
    const holder = startMem(temp.home, ['add', 'Held by a slow disk', '--agent', 'alice', '--json'], {
      prefix: stall('fsync', 4000, 'enter'),
    })
    await untilWriting(temp.home, 'alice')

    const late = await post(server.url, call(1, 'memory_add', {content: 'Added while the disk was slow'}), auth)
    assert.equal(late.status, 504)
    assert.match(
      ((await late.json()) as {error: {message: string}}).error.message,
      /longer than 1 s; a write it made may still have been saved/,
    )

    // Reads take no lock: another request is served while the write waits.
    const read = await post(server.url, call(2, 'memory_search', {query: 'staging cluster'}), auth)
    assert.equal(read.status, 200)
    assert.equal(
      ((await read.json()) as {result: {structuredContent: {count: number}}}).result.structuredContent.count,
      1,
    )

    assert.equal((await holder.done).code, 0)
    // The timed-out write was not abandoned: it ran once the lock was free, exactly once.
    const deadline = Date.now() + 20_000
    let contents: string[] = []
    while (Date.now() < deadline) {
      contents = (
        JSON.parse(mem(temp.home, ['list', '--agent', 'alice', '--json']).stdout) as {facts: {content: string}[]}
      ).facts.map((f) => f.content)
      if (contents.includes('Added while the disk was slow')) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    assert.deepEqual(contents.filter((c) => c === 'Added while the disk was slow').length, 1, JSON.stringify(contents))
    assert.ok(contents.includes('Held by a slow disk'))

    // And the server keeps serving.
    const after = await post(server.url, call(3, 'memory_search', {query: 'slow disk'}), auth)
    assert.equal(after.status, 200)
  })
})
