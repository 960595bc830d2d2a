import assert from 'node:assert/strict'
import {Agent, request} from 'node:http'
import {connect} from 'node:net'

import {createToken, logLine, startHttpServe} from '../helpers/http.js'
import {tempHome} from '../helpers/mem.js'

const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {name: 'memory_search', arguments: {query: 'shutdown'}},
})

interface Outcome {
  status?: number
  retryAfter?: string
  error?: string
}

function send(url: string, agent: Agent, token: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          Authorization: `Bearer ${token}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'Content-Length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume()
        res.on('end', () =>
          resolve({status: res.statusCode, retryAfter: res.headers['retry-after'] as string | undefined}),
        )
        res.on('error', (e: NodeJS.ErrnoException) => resolve({error: e.code ?? e.message}))
      },
    )
    req.on('error', (e: NodeJS.ErrnoException) => resolve({error: e.code ?? e.message}))
    req.end(body)
  })
}

/**
 * Half of a request: its headers and the first bytes of its body; the rest when `finish` is called.
 * It asks `Expect: 100-continue`, so the server's `100 Continue` says its headers were read
 * (and the request handed to mem) before this resolves: without that, a signal sent at once can
 * reach the server before it has read them, and a 503 is then the right answer.
 */
function halfSent(url: string, token: string): Promise<{finish: () => void; answer: Promise<string>}> {
  const {hostname, port} = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    let received = ''
    const answer = new Promise<string>((done) => {
      socket.setEncoding('utf8').on('data', (d: string) => (received += d))
      socket.on('error', () => {})
      socket.once('close', () => done(received))
    })
    socket.once('error', reject)
    socket.once('connect', () => {
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n` +
          `Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
          `Expect: 100-continue\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
      )
      const read = () => {
        if (!received.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) return
        socket.off('data', read)
        received = ''
        socket.write(body.slice(0, 20))
        resolve({finish: () => socket.write(body.slice(20)), answer})
      }
      socket.on('data', read)
    })
  })
}

describe('mem mcp serve --http: SIGTERM', function () {
  this.timeout(120_000)

  it('answers the requests already sent on kept-alive connections, and the one whose body is still arriving', async () => {
    const temp = tempHome()
    const token = createToken(temp.home, ['--name', 'stopping'])
    const served = await startHttpServe(temp.home, ['--rate-limit', '1000000'])
    const agent = new Agent({keepAlive: true, maxSockets: 100})
    try {
      // 100 kept-alive connections, open and idle.
      const warm = await Promise.all(Array.from({length: 100}, () => send(served.url, agent, token)))
      assert.deepEqual(new Set(warm.map((o) => o.status)), new Set([200]))
      const slow = await halfSent(served.url, token)
      await logLine(served, (e) => e.status === 200)

      // A request on each, sent before the signal.
      const answers = Promise.all(Array.from({length: 100}, () => send(served.url, agent, token)))
      const code = served.stop('SIGTERM')
      await new Promise((resolve) => setTimeout(resolve, 300))
      slow.finish()
      const outcomes = await answers
      const failed = outcomes.filter((o) => o.status !== 200 && !(o.status === 503 && o.retryAfter !== undefined))
      assert.deepEqual(failed, [], `every request is answered, 200 or 503 with Retry-After`)
      assert.match(await slow.answer, /^HTTP\/1\.1 200 /, 'the request whose body was still arriving is answered')
      assert.equal(await code, 0, served.logs.slice(-5).join('\n'))
      assert.ok(served.logs.some((l) => l.includes('"event":"stopped","unfinished":0')))
    } finally {
      agent.destroy()
      temp.cleanup()
    }
  })

  it('counts a request still arriving at the end of the grace time as unfinished, and exits 1', async () => {
    const temp = tempHome()
    const token = createToken(temp.home, ['--name', 'stopping'])
    const served = await startHttpServe(temp.home)
    try {
      const slow = await halfSent(served.url, token)
      await new Promise((resolve) => setTimeout(resolve, 300))
      const code = await served.stop('SIGTERM')
      assert.equal(code, 1, served.logs.slice(-5).join('\n'))
      assert.ok(
        served.logs.some((l) => l.includes('"event":"stopped","unfinished":1')),
        served.logs.join('\n'),
      )
      await slow.answer
      // Its request log line says it went unanswered, not 200.
      const line = await logLine(served, (e) => e.path === '/mcp')
      assert.equal(line.unanswered, true, JSON.stringify(line))
      assert.equal(line.status, undefined)
    } finally {
      temp.cleanup()
    }
  })
})
