import assert from 'node:assert/strict'

import {createToken, post, startHttpServe, type HttpServe} from '../helpers/http.js'
import {mem, tempHome} from '../helpers/mem.js'
import {BODY_DEPTH_LIMIT} from '../../src/mcp/http/request-body.js'
import {LIMITS} from '../../src/ops/limits.js'

interface RpcAnswer {
  jsonrpc: string
  id: unknown
  result?: {isError?: boolean; content: {text: string}[]; structuredContent?: Record<string, unknown>}
  error?: {code: number; message: string}
}

/** An object nested `levels` deep: `{}` is one level, `{"a":{}}` two. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {}
  for (let i = 1; i < levels; i++) value = {a: value}
  return value
}

const add = (id: unknown, content: string, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: {name: 'memory_add', arguments: {content}, ...extra},
})

const save = (id: unknown, state: unknown) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: {name: 'checkpoint_save', arguments: {state}},
})

/**
 * What a client that is not an SDK may send: JSON nested too deep to parse cheaply, batches
 * that are empty or repeat an id, tool arguments that are not an object. Each
 * refusal is checked on the wire (status, JSON-RPC code and message) and in the store
 * afterwards, through the CLI, for what the call would have stored.
 */
describe('mem mcp serve --http: JSON-RPC input the server refuses before running it', function () {
  this.timeout(120_000)
  const temp = tempHome()
  const home = temp.home
  let server: HttpServe
  let auth: Record<string, string>

  before(async () => {
    auth = {Authorization: `Bearer ${createToken(home, ['--name', 'main'])}`}
    server = await startHttpServe(home)
  })

  after(async () => {
    await server?.stop()
    temp.cleanup()
  })

  async function send(body: unknown): Promise<{status: number; answer: RpcAnswer | RpcAnswer[] | undefined}> {
    const res = await post(server.url, body, auth)
    const text = await res.text()
    return {status: res.status, answer: text === '' ? undefined : (JSON.parse(text) as RpcAnswer | RpcAnswer[])}
  }

  /** How many facts of the default agent match `query`, by the CLI. */
  function found(query: string): number {
    const r = mem(home, ['search', query, '--json'])
    assert.equal(r.code, 0, r.stderr)
    return (JSON.parse(r.stdout) as {count: number}).count
  }

  /** How many checkpoints the default agent holds, by the CLI. */
  function checkpoints(): number {
    const r = mem(home, ['checkpoints', '--json'])
    assert.equal(r.code, 0, r.stderr)
    return (JSON.parse(r.stdout) as {total: number}).total
  }

  function refusal(answer: RpcAnswer | RpcAnswer[] | undefined): {code: number; message: string} {
    assert.ok(answer && !Array.isArray(answer) && answer.error, JSON.stringify(answer))
    assert.equal(answer.id, null)
    return answer.error
  }

  describe('deep JSON', () => {
    it('refuses a body nested a million deep with 400 and a JSON-RPC error naming the limit', async () => {
      const {status, answer} = await send('['.repeat(1_000_000) + ']'.repeat(1_000_000))
      assert.equal(status, 400)
      const error = refusal(answer)
      assert.equal(error.code, -32600)
      assert.match(error.message, new RegExp(`deeper than ${BODY_DEPTH_LIMIT} levels`))
      assert.match(error.message, new RegExp(`state may nest ${LIMITS.jsonDepth}`))
      // The server goes on serving.
      const next = await send(add(2, 'quokkas: the server still answers after a deep body'))
      assert.equal(next.status, 200)
      assert.equal(found('quokkas'), 1)
    })

    it('refuses a call whose body is one level past the limit, and stores nothing', async () => {
      // message, params, _meta: the _meta object starts at the third level.
      const over = add(3, 'zebras stored past the depth limit', {_meta: nested(BODY_DEPTH_LIMIT - 1)})
      const {status, answer} = await send(over)
      assert.equal(status, 400)
      assert.equal(refusal(answer).code, -32600)
      assert.equal(found('zebras'), 0)
      // A batch is refused whole when one of its messages is too deep.
      const batch = await send([add(4, 'okapis stored beside a deep message'), over])
      assert.equal(batch.status, 400)
      assert.equal(refusal(batch.answer).code, -32600)
      assert.equal(found('okapis'), 0)
    })

    it('runs a call nested exactly as deep as the limit', async () => {
      const at = add(5, 'gazelles stored at the depth limit', {_meta: nested(BODY_DEPTH_LIMIT - 2)})
      const {status, answer} = await send(at)
      assert.equal(status, 200, JSON.stringify(answer))
      assert.equal(found('gazelles'), 1)
    })

    it('saves a checkpoint state nested as deep as the store allows, in a batch, and one deeper gets the tool error', async () => {
      const {status, answer} = await send([save(6, nested(LIMITS.jsonDepth))])
      assert.equal(status, 200)
      // The SDK answers a batch of one with the bare answer.
      const [saved] = [answer].flat()
      assert.ok(saved?.result, JSON.stringify(answer))
      assert.equal(saved.result.isError, undefined, JSON.stringify(answer))
      const resumed = mem(home, ['resume', '--json'])
      assert.equal(resumed.code, 0, resumed.stderr)
      assert.deepEqual((JSON.parse(resumed.stdout) as {state: unknown}).state, nested(LIMITS.jsonDepth))

      // Past the store's limit but within the body's: the tool's own error, naming its limit.
      const deeper = await send(save(7, nested(LIMITS.jsonDepth + 1)))
      assert.equal(deeper.status, 200)
      const result = (deeper.answer as RpcAnswer).result
      assert.equal(result?.isError, true)
      assert.match(result.content[0]!.text, new RegExp(`nested deeper than ${LIMITS.jsonDepth} levels`))
    })
  })
  describe('batches', () => {
    it('answers an empty batch with 400 and JSON-RPC -32600, not 202 and nothing', async () => {
      const {status, answer} = await send([])
      assert.equal(status, 400)
      const error = refusal(answer)
      assert.equal(error.code, -32600)
      assert.match(error.message, /batch is empty/)
    })

    it('refuses a batch in which two requests share an id, before running any of it', async () => {
      const {status, answer} = await send([add(9, 'zebus first, same id'), add(9, 'zebus second, same id')])
      assert.equal(status, 400)
      const error = refusal(answer)
      assert.equal(error.code, -32600)
      assert.match(error.message, /more than one request with id 9;/)
      assert.equal(found('zebus'), 0)

      // The same with string ids, among other messages: the repeated id is named as sent.
      const before = checkpoints()
      const strings = await send([
        add('a', 'elands first'),
        {jsonrpc: '2.0', method: 'notifications/initialized'},
        save('b', {step: 'elands'}),
        add('a', 'elands second'),
      ])
      assert.equal(strings.status, 400)
      assert.match(refusal(strings.answer).message, /more than one request with id "a";/)
      assert.equal(found('elands'), 0)
      assert.equal(checkpoints(), before, 'the checkpoint_save in the refused batch stored nothing')
    })

    it('runs a batch whose ids differ only in type (1 and "1" are different ids) and answers both', async () => {
      const {status, answer} = await send([add(1, 'ibexes under a numeric id'), add('1', 'ibexes under a string id')])
      assert.equal(status, 200)
      assert.ok(Array.isArray(answer), JSON.stringify(answer))
      assert.deepEqual(answer.map((a) => a.id).sort(), [1, '1'].sort())
      assert.ok(
        answer.every((a) => a.result?.structuredContent?.stored === true),
        JSON.stringify(answer),
      )
      assert.equal(found('ibexes'), 2)
    })
  })
  describe('tool arguments', () => {
    const call = (id: number, params: Record<string, unknown>) => ({jsonrpc: '2.0', id, method: 'tools/call', params})

    it('answers arguments that are not an object with -32602 Invalid params saying so, not -32603', async () => {
      for (const [args, kind] of [
        ['{"content": "springboks in a string"}', 'a string'],
        [['springboks in an array'], 'an array'],
        [42, 'a number'],
        [null, 'null'],
      ] as const) {
        const {status, answer} = await send(call(11, {name: 'memory_add', arguments: args}))
        assert.equal(status, 200)
        const error = (answer as RpcAnswer).error
        assert.ok(error, JSON.stringify(answer))
        assert.equal((answer as RpcAnswer).id, 11)
        assert.equal(error.code, -32602)
        assert.equal(
          error.message,
          `Invalid params: tools/call "arguments" must be an object of the tool's arguments by name, not ${kind}.`,
        )
      }
      assert.equal(found('springboks'), 0)
    })

    it('answers a tools/call without a string name with -32602', async () => {
      const missing = await send(call(12, {arguments: {content: 'x'}}))
      assert.equal((missing.answer as RpcAnswer).error?.code, -32602)
      assert.match((missing.answer as RpcAnswer).error!.message, /needs the tool's name in "name"/)
      const number = await send(call(13, {name: 7, arguments: {}}))
      assert.equal((number.answer as RpcAnswer).error?.code, -32602)
      assert.match((number.answer as RpcAnswer).error!.message, /"name" must be a string, not a number/)
    })

    it('in a batch, answers the bad call with its id and runs the good one, as JSON and as an SSE stream', async () => {
      const batch = [
        call(14, {name: 'memory_add', arguments: 'hartebeests'}),
        call(15, {name: 'memory_add', arguments: {content: 'hartebeests run in the good call'}}),
      ]
      const {status, answer} = await send(batch)
      assert.equal(status, 200)
      assert.ok(Array.isArray(answer), JSON.stringify(answer))
      const byId = new Map(answer.map((a) => [a.id, a]))
      assert.equal(byId.get(14)?.error?.code, -32602)
      assert.equal(byId.get(15)?.result?.structuredContent?.stored, true)
      assert.equal(found('hartebeests'), 1)

      const res = await post(server.url, call(16, {name: 'memory_search', arguments: [1]}), {
        ...auth,
        Accept: 'text/event-stream, application/json',
      })
      assert.equal(res.status, 200)
      assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/)
      const data = (await res.text()).split('\n').find((l) => l.startsWith('data: '))
      assert.ok(data)
      const streamed = JSON.parse(data.slice('data: '.length)) as RpcAnswer
      assert.equal(streamed.id, 16)
      assert.equal(streamed.error?.code, -32602)
    })
  })
})
