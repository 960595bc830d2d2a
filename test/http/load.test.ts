import assert from 'node:assert/strict'
import {setTimeout as sleep} from 'node:timers/promises'

import {connectHttp, createToken, createTokenAsync, startHttpServe} from '../helpers/http.js'
import {connectMcp, type McpSession} from '../helpers/mcp.js'
import {tempHome} from '../helpers/mem.js'
import {Ledger, runMix} from '../helpers/workload.js'

/** How long the load runs: 30 s, the run the HTTP server is held to; MEM_LOAD_SECONDS=5 for a quick look. */
const SECONDS = Number(process.env.MEM_LOAD_SECONDS) > 0 ? Number(process.env.MEM_LOAD_SECONDS) : 30
const HTTP_CLIENTS = 32
const STDIO_SERVERS = 4
const AGENTS = 8

describe(`mem mcp serve --http under load (${HTTP_CLIENTS} HTTP clients and ${STDIO_SERVERS} stdio servers, ${SECONDS} s)`, function () {
  this.timeout((SECONDS + 120) * 1000)

  it('fails no call but the intended refusals, and every acknowledged write is on disk afterwards', async () => {
    const temp = tempHome()
    const agent = (i: number) => `load-${i % AGENTS}`
    // One token per HTTP client, each limited to its agent; the rate limit is lifted for the test.
    const tokens = await Promise.all(
      Array.from({length: HTTP_CLIENTS}, (_, i) =>
        createTokenAsync(temp.home, ['--name', `c${i}`, '--agent', agent(i)]),
      ),
    )
    const served = await startHttpServe(temp.home, ['--rate-limit', '1000000'])
    const sessions: McpSession[] = []
    try {
      for (const token of tokens) sessions.push(await connectHttp(served.url, token))
      const stdio = await Promise.all(Array.from({length: STDIO_SERVERS}, () => connectMcp(temp.home)))
      sessions.push(...stdio)

      const ledger = new Ledger()
      let stopping = false
      const loops = [
        ...tokens.map((_, i) => runMix(`http-${i}`, sessions[i]!.call, agent(i), ledger, () => stopping, agent(i + 1))),
        ...stdio.map((s, i) => runMix(`stdio-${i}`, s.call, agent(i), ledger, () => stopping)),
      ]
      await sleep(SECONDS * 1000)
      stopping = true
      await Promise.all(loops)

      assert.deepEqual(ledger.failures.slice(0, 5), [])
      assert.ok(ledger.refusals > 0, 'the intended refusals ran')
      assert.ok(ledger.facts.size === AGENTS && ledger.checkpoints.size === AGENTS, 'every agent was written')
      assert.deepEqual(ledger.missingOnDisk(temp.home), [])
      const served5xx = served.logs.filter((l) => /"status":5\d\d/.test(l))
      assert.deepEqual(served5xx, [])
      process.stderr.write(`      load: ${ledger.calls} calls in ${SECONDS} s, ${ledger.refusals} intended refusals\n`)
    } finally {
      await Promise.all(sessions.map((s) => s.close().catch(() => {})))
      await served.stop()
      temp.cleanup()
    }
  })
})

describe('mem mcp serve --http stopped by SIGTERM under load', function () {
  this.timeout(120_000)

  it('exits 0, and every call that got a success answer is on disk', async () => {
    const temp = tempHome()
    const token = createToken(temp.home, ['--name', 'load'])
    const served = await startHttpServe(temp.home, ['--rate-limit', '1000000'])
    const sessions = await Promise.all(Array.from({length: 16}, () => connectHttp(served.url, token)))
    try {
      const ledger = new Ledger()
      let stopped = false
      const loops = sessions.map((s, i) => runMix(`c${i}`, s.call, `agent-${i % 4}`, ledger, () => stopped))
      await sleep(2000)
      const code = await served.stop('SIGTERM')
      stopped = true
      await Promise.all(loops)
      assert.equal(code, 0, served.logs.slice(-5).join('\n'))
      assert.ok(ledger.facts.size > 0, 'some writes were acknowledged before the stop')
      // Calls after the stop fail (connection refused or 503), never a false success.
      assert.deepEqual(ledger.missingOnDisk(temp.home), [])
      assert.ok(served.logs.some((l) => l.includes('"event":"stopped","unfinished":0')))
    } finally {
      await Promise.all(sessions.map((s) => s.close().catch(() => {})))
      temp.cleanup()
    }
  })
})
