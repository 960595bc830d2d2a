import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {RateLimiter} from '../../src/mcp/http/rate-limit.js'
import {createToken, logLine, post, startHttpServe, type HttpServe} from '../helpers/http.js'
import {tempHome} from '../helpers/mem.js'

const search = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {name: 'memory_search', arguments: {query: 'clock'}},
}

describe('the HTTP rate limiter', () => {
  it('allows a burst, then one call per share of the minute, counted on the clock it is given', () => {
    let now = 5_000
    const limiter = new RateLimiter(60, 3, () => now)
    assert.deepEqual(
      [1, 2, 3].map(() => limiter.take('a')),
      [0, 0, 0],
    )
    assert.equal(limiter.take('a'), 1, 'the fourth call of a burst of 3 waits a second (60 a minute)')
    assert.equal(limiter.take('b'), 0, 'another token has its own bucket')
    now += 999
    assert.equal(limiter.take('a'), 1)
    now += 1
    assert.equal(limiter.take('a'), 0, 'a second later one call is allowed again')
    now += 60_000
    assert.deepEqual(
      [1, 2, 3, 4].map(() => limiter.take('a')),
      [0, 0, 0, 1],
      'a long pause refills the bucket up to the burst, no further',
    )
  })
})

/**
 * The fault as it happens: the built server runs under libfaketime, whose offset it reads from a
 * file on every clock call, so the test can step the wall clock of the running process back an
 * hour. A real clock step (settimeofday, NTP) leaves CLOCK_MONOTONIC alone, so libfaketime is
 * told not to fake it either.
 */
describe('mem mcp serve --http: a wall clock stepped back', function () {
  this.timeout(60_000)
  const temp = tempHome()
  // Beside the home rather than in it: the clock's offset is no file of mem's.
  const clockDir = tempHome()
  const offset = join(clockDir.home, 'offset')
  let served: HttpServe | undefined

  after(async () => {
    await served?.stop()
    temp.cleanup()
    clockDir.cleanup()
  })

  it('does not lock out a token that was rate limited before the step', async () => {
    const token = createToken(temp.home, ['--name', 'stepped'])
    const auth = {Authorization: `Bearer ${token}`}
    writeFileSync(offset, '+0\n')
    served = await startHttpServe(temp.home, ['--rate-limit', '60'], {
      LD_PRELOAD: '/usr/$LIB/faketime/libfaketime.so.1',
      FAKETIME_TIMESTAMP_FILE: offset,
      FAKETIME_NO_CACHE: '1',
      FAKETIME_DONT_FAKE_MONOTONIC: '1',
    })
    // A burst of 6 (60 a minute): the rest of 12 are refused.
    const before = await Promise.all(Array.from({length: 12}, () => post(served!.url, search, auth)))
    assert.ok(
      before.some((r) => r.status === 429),
      `the token is rate limited: ${before.map((r) => r.status).join(' ')}`,
    )
    const limitedAt = Date.parse(String((await logLine(served, (e) => e.status === 429)).time))

    writeFileSync(offset, '-1h\n')
    // One call a second comes back; wait well past that.
    await new Promise((resolve) => setTimeout(resolve, 3000))
    const after = await post(served.url, search, auth)
    const body = await after.text()
    assert.equal(after.status, 200, `a call after the step is served: ${after.headers.get('retry-after')} ${body}`)
    // The log line of that call carries the server's own clock: an hour behind, so the step took.
    await logLine(served, (e) => e.status === 200 && Date.parse(String(e.time)) < limitedAt - 50 * 60_000)
  })
})
