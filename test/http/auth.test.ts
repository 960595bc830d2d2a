import assert from 'node:assert/strict'
import {setTimeout as sleep} from 'node:timers/promises'

import {connectHttp, createToken, logLine, post, startHttpServe, type HttpServe} from '../helpers/http.js'
import {mem, tempHome} from '../helpers/mem.js'
import {snapshotTree} from '../helpers/tree.js'

const ID = /[0-9A-HJKMNP-TV-Z]{26}/

/** One server on one MEM_HOME, with bob's memory in it and tokens of every kind. */
describe('mem mcp serve --http: who gets in, and what they may touch', function () {
  this.timeout(120_000)
  const temp = tempHome()
  const home = temp.home
  let server: HttpServe
  const tokens = {} as Record<'full' | 'alice' | 'team' | 'reader' | 'expiring' | 'revoked', string>
  let bob: {fact: string; checkpoint: string}

  before(async () => {
    tokens.full = createToken(home, ['--name', 'full'])
    tokens.alice = createToken(home, ['--name', 'alice', '--agent', 'alice'])
    tokens.team = createToken(home, ['--name', 'team', '--agent', 'team-*'])
    tokens.reader = createToken(home, ['--name', 'reader', '--read-only'])
    tokens.expiring = createToken(home, ['--name', 'expiring', '--expires', '1s'])
    tokens.revoked = createToken(home, ['--name', 'revoked'])
    const fact = mem(home, ['add', '--agent', 'bob', '--json', 'Bob keeps the release keys in the blue safe'])
    const cp = mem(home, ['save', '--agent', 'bob', '--json', '--state', '{"step":"bob-secret"}'])
    bob = {
      fact: (JSON.parse(fact.stdout) as {fact_id: string}).fact_id,
      checkpoint: (JSON.parse(cp.stdout) as {checkpoint_id: string}).checkpoint_id,
    }
    server = await startHttpServe(home)
  })

  after(async () => {
    await server?.stop()
    temp.cleanup()
  })

  const initialize = {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: {protocolVersion: '2025-11-25', capabilities: {}, clientInfo: {name: 't', version: '1'}},
  }
  const call = (name: string, args: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    id: 2,
    method: 'tools/call',
    params: {name, arguments: args},
  })

  /** Where a 401 points: the endpoint's protected resource metadata (docs/http.md). */
  const metadataUrl = () => `${new URL(server.url).origin}/.well-known/oauth-protected-resource/mcp`

  async function refused401(headers: Record<string, string>): Promise<{challenge: string; body: string}> {
    const res = await post(server.url, initialize, headers)
    assert.equal(res.status, 401)
    const challenge = res.headers.get('www-authenticate') ?? ''
    assert.match(challenge, /^Bearer realm="mem"/)
    return {challenge, body: await res.text()}
  }

  it('refuses a request without a token: 401, WWW-Authenticate: Bearer, and the SDK client cannot connect', async () => {
    const {challenge} = await refused401({})
    assert.equal(challenge, `Bearer realm="mem", resource_metadata="${metadataUrl()}"`)
    await assert.rejects(connectHttp(server.url, undefined), /401|Unauthorized/)
  })

  it('answers a wrong, a malformed, an expired and a revoked token alike, saying nothing of which it was', async () => {
    const wrong = await refused401({Authorization: `Bearer mem_${'A'.repeat(43)}`})
    const malformed = await refused401({Authorization: 'Bearer not-a-token'})
    await sleep(1200)
    const expired = await refused401({Authorization: `Bearer ${tokens.expiring}`})

    const before = await connectHttp(server.url, tokens.revoked)
    await before.close()
    assert.equal(mem(home, ['token', 'revoke', 'revoked']).code, 0)
    const revoked = await refused401({Authorization: `Bearer ${tokens.revoked}`})

    for (const r of [malformed, expired, revoked]) assert.deepEqual(r, wrong)
    assert.equal(wrong.challenge, `Bearer realm="mem", resource_metadata="${metadataUrl()}", error="invalid_token"`)
    assert.doesNotMatch(wrong.body, /expired|revoked|unknown|exist/i)
  })

  it('a read-only token lists and calls only the tools that read, and a write gets 403 with nothing written', async () => {
    const reader = await connectHttp(server.url, tokens.reader)
    try {
      assert.deepEqual(
        reader.tools.map((t) => t.name),
        ['memory_search', 'checkpoint_resume'],
      )
      const found = await reader.call('memory_search', {agent_id: 'bob', query: 'release keys'})
      assert.equal((found.structuredContent as {count: number}).count, 1)
      const before = snapshotTree(home)
      for (const [name, args] of writes('bob')) {
        const res = await post(server.url, call(name, args), {Authorization: `Bearer ${tokens.reader}`})
        assert.equal(res.status, 403, name)
        assert.equal(
          res.headers.get('www-authenticate'),
          'Bearer realm="mem", error="insufficient_scope", scope="mem:write"',
        )
        await assert.rejects(
          reader.call(name, args),
          (e: {code?: number; message: string}) => e.code === 403 && /read-only/.test(e.message),
          name,
        )
      }
      assert.deepEqual(snapshotTree(home), before)
    } finally {
      await reader.close()
    }
  })

  it('a token scoped to alice reaches no other agent through any tool or argument, and the refusal reads the same for a stranger', async () => {
    const alice = await connectHttp(server.url, tokens.alice)
    try {
      // A call naming no agent uses the token's own agent.
      const added = await alice.call('memory_add', {content: 'Alice prefers tea'})
      assert.equal((added.structuredContent as {agent_id: string}).agent_id, 'alice')
      const before = snapshotTree(home)
      for (const other of ['bob', 'carol']) {
        for (const [name, args] of [...reads(other), ...writes(other)]) {
          const r = await alice.call(name, args)
          assert.equal(r.isError, true, `${name} for ${other} should be refused`)
          assert.equal(r.structuredContent, undefined)
          const text = (r.content[0] as {text: string}).text
          assert.match(text, new RegExp(`may not use agent "${other}"`), name)
          assert.doesNotMatch(text, /release keys|bob-secret/)
          const strangerText = text.replaceAll(other, 'X')
          assert.equal(
            strangerText.replace(/^checkpoint resume error: /, ''),
            `this token may not use agent "X"; it is limited to other agents (see "mem token list")`,
          )
        }
      }
      // Bob's ids under alice's own agent are simply not found.
      const update = await alice.call('memory_reflect', {action: 'update', fact_id: bob.fact, content: 'stolen'})
      assert.equal((update.content[0] as {text: string}).text, `No fact "${bob.fact}" found for agent "alice".`)
      const resume = await alice.call('checkpoint_resume', {checkpoint_id: bob.checkpoint})
      assert.equal(resume.isError, true)
      // Not even which agent holds the id: that agent is not the token's.
      assert.equal(
        (resume.content[0] as {text: string}).text,
        `No checkpoint "${bob.checkpoint}" found for agent "alice".`,
      )
      assert.deepEqual(snapshotTree(home), before)
    } finally {
      await alice.close()
    }
  })

  it('a pattern token uses the agents it matches and no others', async () => {
    const team = await connectHttp(server.url, tokens.team)
    try {
      const ok = await team.call('memory_add', {agent_id: 'team-web', content: 'The web team deploys on Tuesdays'})
      assert.notEqual(ok.isError, true)
      const search = await team.call('memory_search', {agent_id: 'team-web', query: 'deploys'})
      assert.equal((search.structuredContent as {count: number}).count, 1)
      const refused = await team.call('memory_search', {agent_id: 'alice', query: 'tea'})
      assert.equal(refused.isError, true)
      // No agent_id and no plain agent in the token: the server's default agent, which the pattern does not match.
      assert.equal((await team.call('memory_add', {content: 'x'})).isError, true)
    } finally {
      await team.close()
    }
  })

  it('an unscoped token may use every agent', async () => {
    const full = await connectHttp(server.url, tokens.full)
    try {
      const r = await full.call('memory_search', {agent_id: 'bob', query: 'release keys'})
      assert.match(JSON.stringify(r.structuredContent), ID)
    } finally {
      await full.close()
    }
  })

  it('logs one JSON line per request with the token name, never the token or what was stored', async () => {
    // The last call of the tests before; its line is written once the answer has gone out.
    await logLine(server, (l) => l.token === 'full' && Array.isArray(l.tool))
    const lines = server.logs.map((l) => JSON.parse(l) as Record<string, unknown>)
    const calls = lines.filter((l) => Array.isArray(l.tool))
    assert.ok(calls.length > 10)
    for (const l of calls) {
      for (const key of ['time', 'token', 'tool', 'status', 'ms']) assert.ok(key in l, `${key} in ${JSON.stringify(l)}`)
    }
    assert.ok(lines.some((l) => l.token === 'reader' && l.status === 403))
    // Each call's outcome lands on its own request's line.
    const outcomes = (token: string) =>
      new Set(calls.filter((l) => l.token === token).map((l) => JSON.stringify(l.result)))
    assert.deepEqual(outcomes('alice'), new Set(['["ok"]', '["tool_error"]']))
    assert.deepEqual(outcomes('full'), new Set(['["ok"]']))
    assert.ok(lines.some((l) => l.status === 401 && l.token === undefined))
    const all = server.logs.join('\n')
    for (const secret of Object.values(tokens)) assert.ok(!all.includes(secret), 'a token reached the log')
    assert.doesNotMatch(all, /Alice prefers tea|release keys|web team deploys/)
  })
})

function reads(agent: string): [string, Record<string, unknown>][] {
  return [
    ['memory_search', {agent_id: agent, query: 'release keys'}],
    ['checkpoint_resume', {agent_id: agent}],
    ['checkpoint_resume', {agent_id: agent, on_missing: 'empty'}],
  ]
}

function writes(agent: string): [string, Record<string, unknown>][] {
  return [
    ['memory_add', {agent_id: agent, content: 'planted'}],
    ['checkpoint_save', {agent_id: agent, state: {planted: true}}],
    ['memory_reflect', {agent_id: agent, action: 'add', content: 'planted'}],
    ['memory_reflect', {agent_id: agent, action: 'delete', fact_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV'}],
  ]
}
