import assert from 'node:assert/strict'
import {readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'

import {parseDuration} from '../../src/auth/duration.js'
import {agentMatcher} from '../../src/auth/agent-patterns.js'
import {mem, memAsync, tempHome} from '../helpers/mem.js'

describe('mem token', function () {
  this.timeout(60_000)

  it('create prints the token once and keeps only its hash, in a private file', () => {
    const temp = tempHome()
    try {
      const r = mem(temp.home, [
        'token',
        'create',
        '--name',
        'laptop',
        '--agent',
        'alice',
        '--agent',
        'team-*',
        '--read-only',
        '--expires',
        '30d',
      ])
      assert.equal(r.code, 0, r.stderr)
      const token = /\b(mem_[A-Za-z0-9_-]{43})\b/.exec(r.stdout)?.[1]
      assert.ok(token, r.stdout)
      assert.match(r.stdout, /^Created token "laptop" \(agents alice, team-\*, read-only, expires \d{4}-/)
      const file = join(temp.home, 'auth', 'tokens.json')
      const text = readFileSync(file, 'utf8')
      assert.ok(!text.includes(token), 'the token itself was stored')
      assert.ok(!text.includes(token.slice(4, 20)), 'part of the token was stored')
      assert.equal(statSync(file).mode & 0o777, 0o600)
      assert.equal(statSync(join(temp.home, 'auth')).mode & 0o777, 0o700)

      const list = JSON.parse(mem(temp.home, ['token', 'list', '--json']).stdout) as {tokens: Record<string, unknown>[]}
      assert.deepEqual(
        list.tokens.map((t) => [t.name, t.agents, t.read_only, t.expired]),
        [['laptop', ['alice', 'team-*'], true, false]],
      )
      assert.ok(!JSON.stringify(list).includes('hash'))
    } finally {
      temp.cleanup()
    }
  })

  it('names tokens token-1, token-2… and refuses a name in use; revoke removes one, and an unknown name exits 3', () => {
    const temp = tempHome()
    try {
      mem(temp.home, ['token', 'create'])
      mem(temp.home, ['token', 'create'])
      const names = () =>
        (JSON.parse(mem(temp.home, ['token', 'list', '--json']).stdout) as {tokens: {name: string}[]}).tokens.map(
          (t) => t.name,
        )
      assert.deepEqual(names(), ['token-1', 'token-2'])
      const dup = mem(temp.home, ['token', 'create', '--name', 'token-1'])
      assert.equal(dup.code, 2)
      assert.match(dup.stderr, /a token named "token-1" exists already/)
      assert.equal(mem(temp.home, ['token', 'revoke', 'token-1']).code, 0)
      assert.deepEqual(names(), ['token-2'])
      const gone = mem(temp.home, ['token', 'revoke', 'token-1'])
      assert.equal(gone.code, 3)
      assert.match(gone.stderr, /no token named "token-1"/)
    } finally {
      temp.cleanup()
    }
  })

  it('refuses a bad --expires, --agent or --name, saying which flag and how to fix it, and stores nothing', () => {
    const temp = tempHome()
    try {
      for (const [args, message] of [
        [['--expires', '30 days'], /--expires "30 days": give a length of time such as 90s, 15m, 12h, 30d or 1h30m/],
        [['--expires', '0s'], /--expires "0s"/],
        [['--agent', '../etc'], /--agent "\.\.\/etc": an agent pattern is an agent id/],
        [['--name', 'two words'], /--name "two words": a token name is/],
      ] as const) {
        const r = mem(temp.home, ['token', 'create', ...args])
        assert.equal(r.code, 2, args.join(' '))
        assert.match(r.stderr, message)
      }
      assert.deepEqual(JSON.parse(mem(temp.home, ['token', 'list', '--json']).stdout), {count: 0, tokens: []})
    } finally {
      temp.cleanup()
    }
  })

  it('loses no token when several are created at once', async () => {
    const temp = tempHome()
    try {
      const runs = await Promise.all(
        Array.from({length: 6}, (_, i) => memAsync(temp.home, ['token', 'create', '--name', `t${i}`])),
      )
      for (const r of runs) assert.equal(r.code, 0, r.stderr)
      const list = JSON.parse(mem(temp.home, ['token', 'list', '--json']).stdout) as {count: number}
      assert.equal(list.count, 6)
    } finally {
      temp.cleanup()
    }
  })

  it('reads durations down to seconds, and patterns with * as any characters', () => {
    assert.equal(parseDuration('90s', '--expires'), 90_000)
    assert.equal(parseDuration('1h30m', '--expires'), 5_400_000)
    assert.equal(parseDuration('2w', '--expires'), 14 * 86_400_000)
    const match = agentMatcher(['alice', 'team-*'])
    assert.deepEqual(['alice', 'alice2', 'team-', 'team-web/x', 'xteam-a', 'Alice'].map(match), [
      true,
      false,
      true,
      true,
      false,
      false,
    ])
    assert.equal(agentMatcher(['a.b'])('axb'), false)
  })
})
