import assert from 'node:assert/strict'
import {spawn, type ChildProcessWithoutNullStreams} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, utimesSync} from 'node:fs'
import {join} from 'node:path'
import {createInterface} from 'node:readline'

import {connectMcp} from '../helpers/mcp.js'
import {childEnv, mem, memAsync, tempHome} from '../helpers/mem.js'
import {withLock} from '../../src/store/lock.js'
import {agentDir} from '../../src/store/paths.js'
import {modeOf, readBack, snapshot} from './files.js'

/** Holds alice's lock from this process (the store's own lock code) until the returned function is called. */
async function holdLock(home: string): Promise<() => Promise<void>> {
  let release!: () => void
  let held!: () => void
  const gate = new Promise<void>((r) => (release = r))
  const acquired = new Promise<void>((r) => (held = r))
  const done = withLock(agentDir(home, 'alice'), async () => {
    held()
    await gate
  })
  await acquired
  return async () => {
    release()
    await done
  }
}

const RACER = join(import.meta.dirname, 'fixtures', 'racer.mjs')
const RACERS = 8
const ROUNDS = 5

/** A process with the store loaded, waiting to add a fact the moment it is told to. */
async function startRacer(home: string, tag: string): Promise<{child: ChildProcessWithoutNullStreams; add: (text: string) => Promise<string>}> {
  const child = spawn(process.execPath, ['--import', 'tsx', RACER, home, 'alice', tag], {env: childEnv(home)})
  const lines = createInterface({input: child.stdout})[Symbol.asyncIterator]()
  const next = async (): Promise<string> => {
    const line = await lines.next()
    assert.ok(!line.done, 'the racer stopped')
    return line.value as string
  }
  assert.equal(await next(), 'ready')
  return {
    child,
    add: async (text) => {
      child.stdin.write(`${text}\n`)
      const line = await next()
      assert.match(line, /^fact /)
      return line.slice(5)
    },
  }
}

describe('locking: bounded waits and stale locks (real processes)', function () {
  this.timeout(120_000)
  let home: ReturnType<typeof tempHome>
  beforeEach(() => {
    home = tempHome()
    assert.equal(mem(home.home, ['add', 'first', '-a', 'alice']).code, 0)
  })
  afterEach(() => home.cleanup())

  it('a lock held by a live process makes the CLI give up after MEM_LOCK_TIMEOUT_MS with a clear error, changing nothing', async () => {
    const release = await holdLock(home.home)
    try {
      const before = snapshot(home.home)
      const r = await memAsync(home.home, ['add', 'second', '-a', 'alice', '--json'], {env: {MEM_LOCK_TIMEOUT_MS: '1500'}})
      assert.equal(r.code, 1)
      assert.match(r.stderr, /could not lock .*alice within 1500 ms: another mem process is writing to it\. Nothing was changed/)
      assert.equal((JSON.parse(r.stdout) as {error: {code: string}}).error.code, 'lock_timeout')
      assert.deepEqual(snapshot(home.home), before)
    } finally {
      await release()
    }
    assert.equal(mem(home.home, ['add', 'second', '-a', 'alice']).code, 0, 'once released, writing works again')
  })

  it('doctor --fix on a folder whose lock stays held reports it busy and changes nothing', async () => {
    chmodSync(agentDir(home.home, 'alice'), 0o755)
    const release = await holdLock(home.home)
    try {
      const before = snapshot(home.home)
      const r = await memAsync(home.home, ['doctor', '--fix', '--json'], {env: {MEM_LOCK_TIMEOUT_MS: '500'}})
      assert.equal(r.code, 1)
      const problems = (JSON.parse(r.stdout) as {problems: {kind: string; fixed: boolean}[]}).problems.map((p) => [p.kind, p.fixed])
      assert.deepEqual(problems, [['permissions', false], ['busy', false]])
      assert.deepEqual(snapshot(home.home), before)
      assert.equal(modeOf(agentDir(home.home, 'alice')), 0o755)
    } finally {
      await release()
    }
  })

  it('the MCP server reports a lock timeout as a tool error and keeps serving', async () => {
    const mcp = await connectMcp(home.home, {args: ['--agent', 'alice'], env: {MEM_LOCK_TIMEOUT_MS: '1000'}})
    try {
      const release = await holdLock(home.home)
      try {
        const r = await mcp.call('memory_add', {content: 'blocked'})
        assert.equal(r.isError, true)
        assert.match((r.content[0] as {text: string}).text, /could not lock/)
        assert.equal((await mcp.call('memory_search', {query: 'first'})).isError, undefined, 'reads need no lock')
      } finally {
        await release()
      }
      assert.equal((await mcp.call('memory_add', {content: 'unblocked'})).isError, undefined)
    } finally {
      await mcp.close()
    }
  })

  it('a lock left by a holder that died is taken over, and so is a takeover guard left by one', () => {
    const dir = agentDir(home.home, 'alice')
    const old = new Date(Date.now() - 60_000)
    for (const name of ['.lock', '.lock-takeover']) {
      mkdirSync(join(dir, name))
      utimesSync(join(dir, name), old, old)
    }
    const r = mem(home.home, ['add', 'after a crash', '-a', 'alice'], {env: {MEM_LOCK_TIMEOUT_MS: '30000'}})
    assert.equal(r.code, 0, r.stderr)
    assert.equal(mem(home.home, ['doctor']).code, 0, 'nothing is left behind')
  })

  it('many writers meeting one stale lock at the same instant: exactly one takes it at a time, no update is lost', async () => {
    const racers = await Promise.all(Array.from({length: RACERS}, (_, i) => startRacer(home.home, `racer ${i}`)))
    const dir = agentDir(home.home, 'alice')
    const acked: string[] = []
    try {
      for (let round = 0; round < ROUNDS; round++) {
        mkdirSync(join(dir, '.lock'), {mode: 0o700})
        const old = new Date(Date.now() - 60_000)
        utimesSync(join(dir, '.lock'), old, old)
        acked.push(...(await Promise.all(racers.map((r) => r.add(`round ${round}`)))))
      }
    } finally {
      for (const r of racers) r.child.kill('SIGKILL')
    }
    const stored = new Set((await readBack(home.home, 'alice')).facts.map((f) => f.id))
    assert.equal(acked.length, RACERS * ROUNDS)
    assert.deepEqual(acked.filter((id) => !stored.has(id)), [])
  })

  for (const names of [['.lock'], ['.lock-takeover'], ['.lock', '.lock-takeover']]) {
    it(`doctor reports a stale ${names.join(' and ')} and --fix removes it`, () => {
      const dir = agentDir(home.home, 'alice')
      const old = new Date(Date.now() - 60_000)
      for (const name of names) {
        mkdirSync(join(dir, name), {mode: 0o700})
        utimesSync(join(dir, name), old, old)
      }
      const report = mem(home.home, ['doctor', '--json'])
      assert.equal(report.code, 1)
      const kinds = (JSON.parse(report.stdout) as {problems: {kind: string; path: string}[]}).problems.map((p) => [p.kind, p.path])
      assert.deepEqual(kinds, names.map((n) => ['stale_lock', join(dir, n)]))
      const fixed = mem(home.home, ['doctor', '--fix', '--json'])
      assert.equal(fixed.code, 0, fixed.stdout)
      assert.deepEqual((JSON.parse(fixed.stdout) as {problems: {kind: string; fixed: boolean}[]}).problems.map((p) => [p.kind, p.fixed]), names.map(() => ['stale_lock', true]))
      assert.equal(existsSync(join(dir, '.lock')) || existsSync(join(dir, '.lock-takeover')), false)
      assert.equal(mem(home.home, ['doctor']).code, 0)
    })
  }
})
