import assert from 'node:assert/strict'
import {spawn, type ChildProcessWithoutNullStreams} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, readFileSync, symlinkSync, unlinkSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {createInterface} from 'node:readline'

import {connectMcp} from '../helpers/mcp.js'
import {childEnv, mem, memAsync, tempHome} from '../helpers/mem.js'
import {withLock} from '../../src/store/file/lock.js'
import {agentDir} from '../../src/store/file/paths.js'
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
async function startRacer(
  home: string,
  tag: string,
): Promise<{child: ChildProcessWithoutNullStreams; add: (text: string) => Promise<string>}> {
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

describe('locking: kernel locks, bounded waits, lock debris (real processes)', function () {
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
      const r = await memAsync(home.home, ['add', 'second', '-a', 'alice', '--json'], {
        env: {MEM_LOCK_TIMEOUT_MS: '1500'},
      })
      assert.equal(r.code, 1)
      assert.match(
        r.stderr,
        new RegExp(
          `could not lock .*alice within 1500 ms: mem process ${process.pid} has held it since \\S+\\. Nothing was changed\\. If process ${process.pid} is stopped`,
        ),
      )
      assert.equal((JSON.parse(r.stdout) as {error: {code: string}}).error.code, 'lock_timeout')
      assert.deepEqual(snapshot(home.home), before)
    } finally {
      await release()
    }
    assert.equal(mem(home.home, ['add', 'second', '-a', 'alice']).code, 0, 'once released, writing works again')
  })

  it('doctor --fix on a folder whose lock stays held reports it busy and changes nothing', async () => {
    const facts = join(agentDir(home.home, 'alice'), 'facts')
    chmodSync(facts, 0o755)
    const release = await holdLock(home.home)
    try {
      const before = snapshot(home.home)
      const r = await memAsync(home.home, ['doctor', '--fix', '--json'], {env: {MEM_LOCK_TIMEOUT_MS: '500'}})
      assert.equal(r.code, 1)
      const problems = (JSON.parse(r.stdout) as {problems: {kind: string; fixed: boolean}[]}).problems.map((p) => [
        p.kind,
        p.fixed,
      ])
      assert.deepEqual(problems, [
        ['permissions', false],
        ['busy', false],
      ])
      assert.deepEqual(snapshot(home.home), before)
      assert.equal(modeOf(facts), 0o755)
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

  it('the lock folders an older mem left (.lock, .lock-takeover) neither block nor delay a write', () => {
    const dir = agentDir(home.home, 'alice')
    for (const name of ['.lock', '.lock-takeover']) mkdirSync(join(dir, name))
    const r = mem(home.home, ['add', 'after an older mem', '-a', 'alice'], {env: {MEM_LOCK_TIMEOUT_MS: '500'}})
    assert.equal(r.code, 0, r.stderr)
  })

  it('a lock file that is a symbolic link is never followed: writes fail naming it, doctor reports it and --fix removes it', () => {
    const dir = agentDir(home.home, 'alice')
    const target = join(home.home, 'elsewhere')
    writeFileSync(target, "not mem's")
    // Planted in place of the lock file the first add made.
    unlinkSync(join(dir, 'write.lock'))
    symlinkSync(target, join(dir, 'write.lock'))
    const r = mem(home.home, ['add', 'blocked', '-a', 'alice', '--json'])
    assert.equal(r.code, 1)
    assert.match(
      r.stderr,
      /cannot lock .*write\.lock: it is a symbolic link, and mem's lock file must be a regular file\. Nothing was changed\. Remove it \("mem doctor --fix" does\)/,
    )
    assert.equal(readFileSync(target, 'utf8'), "not mem's")
    const report = JSON.parse(mem(home.home, ['doctor', '--json']).stdout) as {
      problems: {kind: string; path: string; problem: string}[]
    }
    assert.deepEqual(
      report.problems.map((p) => [p.kind, p.path]),
      [['bad_lock', join(dir, 'write.lock')]],
    )
    assert.match(report.problems[0]!.problem, /symbolic link/)
    assert.equal(mem(home.home, ['doctor', '--fix']).code, 0)
    assert.equal(readFileSync(target, 'utf8'), "not mem's")
    assert.equal(mem(home.home, ['add', 'unblocked', '-a', 'alice']).code, 0)
  })

  it('a .lock that is a symbolic link (left or planted) delays no write; doctor reports it and --fix removes the link, not what it points to', () => {
    const dir = agentDir(home.home, 'alice')
    const target = join(home.home, 'precious')
    mkdirSync(target)
    symlinkSync(target, join(dir, '.lock'))
    assert.equal(mem(home.home, ['add', 'not blocked', '-a', 'alice'], {env: {MEM_LOCK_TIMEOUT_MS: '500'}}).code, 0)
    const report = JSON.parse(mem(home.home, ['doctor', '--json']).stdout) as {problems: {kind: string; path: string}[]}
    assert.deepEqual(
      report.problems.map((p) => [p.kind, p.path]),
      [['stale_lock', join(dir, '.lock')]],
    )
    assert.equal(mem(home.home, ['doctor', '--fix']).code, 0)
    assert.equal(existsSync(join(dir, '.lock')), false)
    assert.equal(existsSync(target), true)
  })

  it('an agent folder made read-only (0500): doctor --fix repairs its mode before locking it, not reporting "busy"', () => {
    chmodSync(agentDir(home.home, 'alice'), 0o500)
    // A stale temp file needs the lock to be removed, so the repair must get past the lock.
    writeFileSync(join(agentDir(home.home, 'alice'), 'facts', '.000001.json.999999999.abcd.tmp'), '')
    const fixed = mem(home.home, ['doctor', '--fix', '--json'])
    assert.deepEqual(
      (JSON.parse(fixed.stdout) as {problems: {kind: string; fixed: boolean}[]}).problems.map((p) => [p.kind, p.fixed]),
      [
        ['permissions', true],
        ['temp_file', true],
      ],
    )
    assert.equal(modeOf(agentDir(home.home, 'alice')), 0o700)
    assert.equal(mem(home.home, ['add', 'unblocked', '-a', 'alice']).code, 0)
  })

  it('many writers released at the same instant: exactly one holds the lock at a time, no update is lost', async () => {
    const racers = await Promise.all(Array.from({length: RACERS}, (_, i) => startRacer(home.home, `racer ${i}`)))
    const acked: string[] = []
    try {
      for (let round = 0; round < ROUNDS; round++) {
        acked.push(...(await Promise.all(racers.map((r) => r.add(`round ${round}`)))))
      }
    } finally {
      for (const r of racers) r.child.kill('SIGKILL')
    }
    const stored = new Set((await readBack(home.home, 'alice')).facts.map((f) => f.id))
    assert.equal(acked.length, RACERS * ROUNDS)
    assert.deepEqual(
      acked.filter((id) => !stored.has(id)),
      [],
    )
  })

  for (const names of [['.lock'], ['.lock-takeover'], ['.lock', '.lock-takeover']]) {
    it(`doctor reports a ${names.join(' and ')} left by an older mem and --fix removes it`, () => {
      const dir = agentDir(home.home, 'alice')
      for (const name of names) mkdirSync(join(dir, name), {mode: 0o700})
      const report = mem(home.home, ['doctor', '--json'])
      assert.equal(report.code, 1)
      const kinds = (JSON.parse(report.stdout) as {problems: {kind: string; path: string}[]}).problems.map((p) => [
        p.kind,
        p.path,
      ])
      assert.deepEqual(
        kinds,
        names.map((n) => ['stale_lock', join(dir, n)]),
      )
      const fixed = mem(home.home, ['doctor', '--fix', '--json'])
      assert.equal(fixed.code, 0, fixed.stdout)
      assert.deepEqual(
        (JSON.parse(fixed.stdout) as {problems: {kind: string; fixed: boolean}[]}).problems.map((p) => [
          p.kind,
          p.fixed,
        ]),
        names.map(() => ['stale_lock', true]),
      )
      assert.equal(existsSync(join(dir, '.lock')) || existsSync(join(dir, '.lock-takeover')), false)
      assert.equal(mem(home.home, ['doctor']).code, 0)
    })
  }
})
