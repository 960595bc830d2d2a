import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {connect, type Socket} from 'node:net'
import {join} from 'node:path'

import {connectHttp, createToken, logLine, startHttpServe, type HttpServe} from '../helpers/http.js'
import {mem, tempHome} from '../helpers/mem.js'

/** docs/http.md: request headers have 10 s to arrive. */
const HEADERS_MS = 10_000
/** Generous: the machine running the tests may be loaded. */
const SLACK_MS = 8_000

interface Held {
  socket: Socket
  connectedAt: number
  closedAt?: number
  received: string
}

/** A raw TCP connection that sends nothing (or what `trickle` says, a byte at a time). */
function hold(url: string, trickle = ''): Promise<Held> {
  const {hostname, port} = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    const held: Held = {socket, connectedAt: 0, received: ''}
    let timer: NodeJS.Timeout | undefined
    socket.setEncoding('utf8')
    socket.on('data', (d: string) => (held.received += d))
    socket.on('error', () => {})
    socket.once('close', () => {
      held.closedAt = performance.now()
      clearInterval(timer)
    })
    socket.once('connect', () => {
      held.connectedAt = performance.now()
      let sent = 0
      if (trickle !== '')
        timer = setInterval(() => {
          if (sent < trickle.length && !socket.destroyed) socket.write(trickle[sent++]!)
        }, 500)
      resolve(held)
    })
    socket.once('error', reject)
  })
}

async function until(what: string, ok: () => boolean, ms: number): Promise<void> {
  const end = performance.now() + ms
  while (!ok()) {
    if (performance.now() > end) throw new Error(`gave up waiting: ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

describe('mem mcp serve --http: idle and slow connections', function () {
  this.timeout(120_000)
  const temp = tempHome()
  let served: HttpServe | undefined
  const sockets: Held[] = []

  after(async () => {
    for (const s of sockets) s.socket.destroy()
    await served?.stop()
    temp.cleanup()
  })

  it('keeps serving a client while many idle connections are open, and closes those within the documented 10 s', async () => {
    mem(temp.home, ['add', '--agent', 'default', 'Idle sockets do not starve real clients'])
    const token = createToken(temp.home, ['--name', 'real'])
    served = await startHttpServe(temp.home, ['--max-connections', '100'])

    const trickling = await hold(served.url, 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ' + 'a'.repeat(200))
    sockets.push(trickling)
    // A request under way (its body half sent) is never the one to give way.
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {name: 'memory_search', arguments: {query: 'sockets'}},
    })
    const underWay = await hold(served.url)
    underWay.socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
        `Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
        `Expect: 100-continue\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    )
    // The server says 100 Continue as it takes the request up: from then on it is under way.
    await until('the server takes the request up', () => underWay.received.startsWith('HTTP/1.1 100 '), 30_000)
    underWay.socket.write(body.slice(0, 20))
    for (let i = 0; i < 10; i++) sockets.push(...(await Promise.all(Array.from({length: 50}, () => hold(served!.url)))))
    const idle = sockets.slice(1)
    // Over the cap of 100, the oldest connections with no request under way give way.
    await until(
      'the connections over the cap are closed',
      () => sockets.filter((s) => s.closedAt === undefined).length <= 100,
      HEADERS_MS,
    )
    assert.ok(trickling.closedAt !== undefined, 'the oldest connection, still sending its headers, gave way first')

    // A real client connects while the cap is full of idle connections, and is answered.
    const stillOpen = idle.filter((s) => s.closedAt === undefined).length
    const session = await connectHttp(served.url, token)
    try {
      for (let i = 0; i < 3; i++) {
        const r = await session.call('memory_search', {query: 'sockets'})
        assert.equal(r.isError, undefined, JSON.stringify(r.content))
        assert.equal((r.structuredContent as {count: number}).count, 1)
      }
      const openDuring = idle.filter((s) => s.closedAt === undefined).length
      assert.ok(
        openDuring > 0 && stillOpen >= 90,
        `the client was served with the cap full of idle connections (${stillOpen} open before it came, ${openDuring} after)`,
      )
    } finally {
      await session.close()
    }
    underWay.socket.write(body.slice(20))
    await until('the request under way is answered', () => /"result"/.test(underWay.received), 30_000)
    assert.match(underWay.received, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /)
    assert.equal(underWay.closedAt, undefined, 'its connection is still open')
    underWay.socket.destroy()
    await logLine(served, (e) => e.event === 'warning' && /100 connections are open/.test(String(e.message)))

    // The rest are closed at their headers time, with 408, not tens of seconds later.
    await until(
      'every idle connection is closed',
      () => idle.every((s) => s.closedAt !== undefined),
      HEADERS_MS + SLACK_MS,
    )
    const timedOut = idle.filter((s) => s.received !== '')
    assert.ok(timedOut.length >= 90, `${timedOut.length} connections were closed by the headers time`)
    for (const s of timedOut) {
      assert.match(s.received, /^HTTP\/1\.1 408 /)
      const heldFor = s.closedAt! - s.connectedAt
      assert.ok(heldFor >= HEADERS_MS - 1000, `closed after ${Math.round(heldFor)} ms, not before the headers time`)
      assert.ok(heldFor <= HEADERS_MS + SLACK_MS, `closed after ${Math.round(heldFor)} ms`)
    }
    assert.equal(served.child.exitCode, null, 'the server is still up')
  })

  it('closes a connection that trickles its headers within the documented 10 s, with 408', async () => {
    // A server of its own, so that the test does not depend on when the first one started.
    await served?.stop()
    served = await startHttpServe(temp.home)
    const trickling = await hold(served.url, 'POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ' + 'a'.repeat(200))
    sockets.push(trickling)
    await until('the trickling connection is closed', () => trickling.closedAt !== undefined, HEADERS_MS + SLACK_MS)
    assert.match(trickling.received, /^HTTP\/1\.1 408 /)
    assert.ok(trickling.closedAt! - trickling.connectedAt >= HEADERS_MS - 1000)
  })

  it('over HTTPS, closes a connection that never starts its TLS handshake within the same 10 s', async () => {
    await served?.stop()
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
      ],
      {stdio: 'ignore'},
    )
    served = await startHttpServe(temp.home, ['--tls-cert', cert, '--tls-key', key])
    const silent = await hold(served.url)
    sockets.push(silent)
    await until('the silent TLS connection is closed', () => silent.closedAt !== undefined, HEADERS_MS + SLACK_MS)
    assert.ok(silent.closedAt! - silent.connectedAt >= HEADERS_MS - 1000)
  })
})
