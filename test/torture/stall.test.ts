import assert from 'node:assert/strict'
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

import {connectMcp} from '../helpers/mcp.js'
import {mem, memAsync, tempHome} from '../helpers/mem.js'
import {readBack} from '../reliability/files.js'
import {FACT_SEGMENT} from '../../src/store/file/collections.js'
import {agentDir} from '../../src/store/file/paths.js'
import type {FactRecord} from '../../src/store/records.js'
import {SegmentedFiles} from '../../src/store/file/segments.js'
import {OLD_STALE, ackedId, stall, stallOn, startMem, untilWriting} from './helpers.js'

/**
 * A writer that stalls while it holds the lock (a slow disk, Ctrl-Z, SIGSTOP) must keep it:
 * every other writer waits, then either succeeds after it or gives up with a lock_timeout
 * that names the holder. Nothing acknowledged is ever lost.
 */
describe('torture: a lock holder that stalls keeps its lock, and nothing acknowledged is lost', function () {
  this.timeout(60_000)
  let home: ReturnType<typeof tempHome>
  beforeEach(() => {
    home = tempHome()
    assert.equal(mem(home.home, ['add', 'seed', '-a', 's']).code, 0)
  })
  afterEach(() => home.cleanup())

  // The add after the seed appends to the seed segment's journal; a thread turn opens no new segment either.
  const journal = () => join(agentDir(home.home, 's'), 'facts', '000001.jsonl')
  const stalls = [
    {what: 'a 3 s fsync of the data file (a slow disk)', prefix: () => stall('fsync', 3000, 'exit')},
    {
      what: 'a 3 s stall just before the write of the line that commits',
      prefix: () => stallOn(journal(), 'write', 3000, 'enter'),
    },
  ]
  for (const {what, prefix} of stalls) {
    it(`${what}: waiting writers succeed after it, an impatient one times out naming the holder`, async () => {
      const slow = startMem(home.home, ['add', 'A: the stalled writer', '-a', 's', '--json'], {prefix: prefix()})
      let slowDone = false
      void slow.done.then(() => (slowDone = true))
      const holder = await untilWriting(home.home, 's', undefined, () => slowDone)
      const patient = Array.from({length: 3}, (_, j) =>
        memAsync(home.home, ['add', `B${j}`, '-a', 's', '--json'], {env: {...OLD_STALE, MEM_LOCK_TIMEOUT_MS: '30000'}}),
      )
      const impatient = await memAsync(home.home, ['add', 'C: gives up', '-a', 's', '--json'], {
        env: {...OLD_STALE, MEM_LOCK_TIMEOUT_MS: '500'},
      })
      const results = [await slow.done, ...(await Promise.all(patient))]
      const acked = results.map(ackedId)
      assert.deepEqual(
        acked.map((id) => id !== undefined),
        [true, true, true, true],
        results.map((r) => r.stderr).join('\n'),
      )
      const stored = new Set((await readBack(home.home, 's')).facts.map((f) => f.id))
      assert.deepEqual(
        acked.filter((id) => !stored.has(id!)),
        [],
        'acknowledged facts lost',
      )
      assert.equal(stored.size, 5)
      assert.equal(impatient.code, 1, impatient.stdout)
      const error = (JSON.parse(impatient.stdout) as {error: {code: string; message: string}}).error
      assert.equal(error.code, 'lock_timeout')
      assert.match(
        error.message,
        new RegExp(`mem process ${holder} has held it since .*Nothing was changed.*kill -CONT ${holder}`),
      )
      assert.equal(mem(home.home, ['doctor']).code, 0)
    })
  }

  it('a server stalled between its append and its flush never takes the identity of a file it did not write for its own', async () => {
    const mcp = await connectMcp(home.home, {
      args: ['--agent', 's'],
      env: OLD_STALE,
      // fsync 1 of the server's first add flushes the journal it has just written to.
      prefix: stall('fsync', 2000, 'enter'),
    })
    try {
      const files = new SegmentedFiles<FactRecord>(agentDir(home.home, 's'), FACT_SEGMENT)
      const pending = mcp.call('memory_add', {content: 'one'})
      // The line is written (the journal holds "one"), its flush delayed: the segment is folded and replaced behind the lock's back.
      while (!(existsSync(journal()) && readFileSync(journal(), 'utf8').includes('"one"'))) await sleep(2)
      const records = files.read('000001.json').records
      files.write('000001.json', [
        ...records,
        {
          id: '01JAAAAAAAAAAAAAAAAAAAAAAA',
          content: 'written behind the lock',
          tags: [],
          created_at: '2026-01-01T00:00:00.000Z',
        },
      ])
      assert.equal((await pending).isError, undefined)
      assert.equal((await mcp.call('memory_add', {content: 'two'})).isError, undefined)
    } finally {
      await mcp.close()
    }
    const contents = (await readBack(home.home, 's')).facts.map((f) => f.content)
    assert.deepEqual(contents, ['seed', 'one', 'written behind the lock', 'two'])
  })

  it('a server whose segment is replaced behind the lock between its read and its append loses nothing: not refused, not wedged', async () => {
    // In the server's first memory_add, openat 1 of the journal is the read (there is none yet),
    // openat 2 the append: the stall falls between the read and the write.
    const mcp = await connectMcp(home.home, {
      args: ['--agent', 's'],
      env: OLD_STALE,
      prefix: stallOn(journal(), 'openat', 2000, 'enter', 2),
    })
    try {
      const dir = agentDir(home.home, 's')
      const files = new SegmentedFiles<FactRecord>(dir, FACT_SEGMENT)
      const before = readFileSync(join(dir, 'facts', '000001.json'), 'utf8')
      const pending = mcp.call('memory_add', {content: 'from the server'})
      // Well inside the 2 s stall: the server has read the agent under the lock and not written yet.
      await sleep(700)
      assert.equal(readFileSync(join(dir, 'facts', '000001.json'), 'utf8'), before)
      assert.equal(existsSync(journal()), false)
      files.write('000001.json', [
        ...files.read('000001.json').records,
        {
          id: '01JAAAAAAAAAAAAAAAAAAAAAAA',
          content: 'written behind the lock',
          tags: [],
          created_at: '2026-01-01T00:00:00.000Z',
        },
      ])
      const r = await pending
      assert.equal(r.isError, undefined, JSON.stringify(r.content))
      assert.equal((await mcp.call('memory_add', {content: 'and after'})).isError, undefined)
    } finally {
      await mcp.close()
    }
    // An append never writes over what it did not read: its line lands after the new file's records.
    const contents = (await readBack(home.home, 's')).facts.map((f) => f.content)
    assert.deepEqual(contents, ['seed', 'written behind the lock', 'from the server', 'and after'])
  })

  it('SIGKILL of a holder stuck in fsync frees its lock at once: the next writer does not wait for any stale time', async () => {
    const slow = startMem(home.home, ['add', 'killed', '-a', 's'], {prefix: stall('fsync', 30_000, 'exit')})
    const holder = await untilWriting(home.home, 's')
    process.kill(holder, 'SIGKILL')
    // Once strace has seen its tracee die (a traced process lingers until its tracer lets it
    // finish exiting), the lock must be free: 1 s is less than any stale time a lock judged by
    // age could use (2 s at least before), and the dead holder's lock was fresh when it died.
    await slow.done
    const next = mem(home.home, ['add', 'right after', '-a', 's', '--json'], {
      env: {...OLD_STALE, MEM_LOCK_TIMEOUT_MS: '1000'},
    })
    assert.equal(next.code, 0, next.stderr)
    // The killed add was never acknowledged, so its fact may be there or not: on a busy machine
    // it can write (and fsync) before the kill arrives. What must hold is everything else.
    const contents = (await readBack(home.home, 's')).facts.map((f) => f.content)
    assert.deepEqual(
      contents.filter((c) => c !== 'killed'),
      ['seed', 'right after'],
    )
    assert.ok(contents.filter((c) => c === 'killed').length <= 1, JSON.stringify(contents))
  })

  it('SIGTSTP of a `mem import` holding the lock: adds wait for it, then every one and the whole import are stored', async () => {
    const lines = [JSON.stringify({type: 'header', format: 'mem.export', version: 1})]
    for (let i = 0; i < 40_000; i++)
      lines.push(
        JSON.stringify({
          type: 'fact',
          agent_id: 's',
          id: ulidLike(i),
          content: `imported ${i}`,
          tags: [],
          created_at: '2026-01-01T00:00:00.000Z',
        }),
      )
    const imp = startMem(home.home, ['import', '-', '--json'], {input: `${lines.join('\n')}\n`})
    let impDone = false
    void imp.done.then(() => (impDone = true))
    await untilWriting(
      home.home,
      's',
      (pid) => pid === imp.child.pid,
      () => impDone,
    )
    imp.child.kill('SIGTSTP')
    const adds = Array.from({length: 3}, (_, j) =>
      memAsync(home.home, ['add', `during import ${j}`, '-a', 's', '--json'], {
        env: {...OLD_STALE, MEM_LOCK_TIMEOUT_MS: '30000'},
      }),
    )
    await sleep(3000)
    imp.child.kill('SIGCONT')
    const r = await imp.done
    assert.equal(r.code, 0, r.stderr)
    const acked = (await Promise.all(adds)).map(ackedId)
    assert.equal(acked.filter(Boolean).length, 3)
    const stored = await readBack(home.home, 's')
    const ids = new Set(stored.facts.map((f) => f.id))
    assert.deepEqual(
      acked.filter((id) => !ids.has(id!)),
      [],
      'acknowledged adds lost',
    )
    assert.equal(stored.facts.length, 1 + 3 + 40_000)
  })

  it('SIGSTOP/SIGCONT of a `mem mcp serve` doing parallel memory_add while the CLI adds: 0 lost over 3 rounds, and the server is not wedged', async () => {
    const mcp = await connectMcp(home.home, {args: ['--agent', 's'], env: OLD_STALE})
    const pid = mcp.pid!
    const acked: string[] = []
    let stop = false
    let serverErrors = 0
    const loop = async (n: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const r = await mcp.call('memory_add', {content: `server ${n}.${i}`})
        if (r.isError) serverErrors++
        else acked.push((r.structuredContent as {fact_id: string}).fact_id)
      }
    }
    try {
      const loops = [0, 1, 2].map(loop)
      for (let round = 0; round < 3; round++) {
        await untilWriting(home.home, 's', (p) => p === pid)
        process.kill(pid, 'SIGSTOP')
        const cli = await Promise.all(
          Array.from({length: 3}, (_, j) =>
            memAsync(home.home, ['add', `cli ${round}.${j}`, '-a', 's', '--json'], {
              env: {...OLD_STALE, MEM_LOCK_TIMEOUT_MS: '2500'},
            }),
          ),
        )
        process.kill(pid, 'SIGCONT')
        for (const r of cli) {
          const id = ackedId(r)
          if (id) acked.push(id)
          else assert.match(r.stdout, new RegExp(`"lock_timeout".*mem process ${pid} has held it`), r.stdout)
        }
        await sleep(300)
      }
      stop = true
      await Promise.all(loops)
      assert.equal(serverErrors, 0)
      const after = await mcp.call('memory_add', {content: 'after the rounds'})
      assert.equal(after.isError, undefined, 'the server is not wedged')
      acked.push((after.structuredContent as {fact_id: string}).fact_id)
    } finally {
      await mcp.close()
    }
    const stored = new Set((await readBack(home.home, 's')).facts.map((f) => f.id))
    assert.deepEqual(
      acked.filter((id) => !stored.has(id)),
      [],
      'acknowledged facts lost',
    )
  })
})

/** A valid, distinct ULID for the i-th imported fact (Crockford's base 32). */
function ulidLike(i: number): string {
  const digits = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
  let tail = ''
  for (let n = i; tail.length < 16; n = Math.floor(n / 32)) tail = digits[n % 32]! + tail
  return `01JAAAAAAA${tail}`
}
