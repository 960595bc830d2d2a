import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {readFileSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'

import {connectMcp, type McpSession} from '../../helpers/mcp.js'
import {mem, tempHome} from '../../helpers/mem.js'
import {writeFactSegments} from '../../helpers/segments.js'
import {FACT_SEGMENT} from '../../../src/store/file/collections.js'
import {newId} from '../../../src/store/ids.js'
import {agentDir} from '../../../src/store/file/paths.js'
import type {FactRecord} from '../../../src/store/records.js'
import {SETTLED_MS} from '../../../src/store/file/revision.js'
import {SegmentedFiles, segmentName} from '../../../src/store/file/segments.js'

/**
 * A warm server's adds keep the duplicate guard's digests, the revision stamp and the folder's
 * listing in memory, and check them by identity before every add (one stat per segment, one of
 * the stamp and one of the folder). These tests change the files behind a server that holds
 * all of that, the folder's times settled so that its listing is kept, and hold the next add
 * to what the files say now.
 */

interface Added {
  fact_id: string
  duplicate: boolean
}

async function add(session: McpSession, content: string): Promise<Added> {
  const r = await session.call('memory_add', {content})
  assert.notEqual(r.isError, true, JSON.stringify(r.content))
  return r.structuredContent as unknown as Added
}

function ok(home: string, args: string[]): string {
  const r = mem(home, args)
  assert.equal(r.code, 0, r.stderr)
  return r.stdout
}

/** Changes a file in place and puts its modification time back (`touch -r`, to the nanosecond): only its ctime tells. */
function editInPlace(path: string, from: string, to: string): void {
  const before = statSync(path, {bigint: true})
  const text = readFileSync(path, 'utf8')
  assert.ok(text.includes(from))
  // Beside the agent's folders, not in the segment's: the folder itself must not change.
  const ref = join(dirname(dirname(path)), 'edit.ref')
  writeFileSync(ref, '')
  assert.equal(spawnSync('touch', ['-r', path, ref]).status, 0)
  writeFileSync(path, text.replace(from, to))
  assert.equal(spawnSync('touch', ['-r', ref, path]).status, 0)
  rmSync(ref)
  const after = statSync(path, {bigint: true})
  assert.equal(after.mtimeNs, before.mtimeNs)
  assert.equal(after.ino, before.ino)
}

const settle = () => new Promise((done) => setTimeout(done, SETTLED_MS + 300))

describe("a warm server's adds", function () {
  this.timeout(60_000)
  let home: string
  let cleanup: () => void
  let session: McpSession | undefined
  let paths: string[]

  /** A server that has searched, added (its digests held) and whose folder and stamp are settled. */
  async function warmServer(): Promise<McpSession> {
    paths = writeFactSegments(home, 30, 10, (i) =>
      i === 2 ? 'the weir floods in March' : `the otter number ${i} swims`,
    )
    ok(home, ['search', '--json', 'otter'])
    const s = await connectMcp(home)
    const r = await s.call('memory_search', {query: 'otter', limit: 100})
    assert.notEqual(r.isError, true, JSON.stringify(r.content))
    // Confirmed from the older segment read whole, its digests then held.
    assert.equal((await add(s, 'The weir  floods in march')).duplicate, true)
    assert.equal((await add(s, 'the heron fishes at dawn')).duplicate, false)
    await settle()
    assert.equal((await add(s, 'the kingfisher nests under the bridge')).duplicate, false)
    return s
  }

  beforeEach(() => {
    ;({home, cleanup} = tempHome())
  })

  afterEach(async () => {
    await session?.close()
    session = undefined
    cleanup()
  })

  it('see an older segment edited by hand in place, with its size and time put back', async () => {
    session = await warmServer()
    // Same length too, so that size and modification time say nothing.
    editInPlace(paths[0]!, 'the weir floods in March', 'the weir thawed in March')
    assert.equal((await add(session, 'THE WEIR THAWED IN MARCH')).duplicate, true, 'the new words are stored')
    assert.equal(
      (await add(session, 'the weir floods in March')).duplicate,
      false,
      'the old words are no longer there: no stale digest or copy vouches for them',
    )
  })

  it("see another process's mark of a fact in an older segment, and its add to the last one", async () => {
    session = await warmServer()
    const found = JSON.parse(ok(home, ['search', '--json', 'weir'])) as {facts: {id: string}[]}
    ok(home, ['reflect', 'delete', '--json', '-f', found.facts[0]!.id])
    assert.equal((await add(session, 'the weir floods in March')).duplicate, false, 'a deleted fact is no duplicate')
    await settle()
    ok(home, ['add', '--json', 'the lock keeper sleeps at noon'])
    assert.equal((await add(session, 'The lock keeper sleeps at noon')).duplicate, true)
  })

  it('see a segment another process put in the folder, after the folder had settled', async () => {
    session = await warmServer()
    const files = new SegmentedFiles<FactRecord>(agentDir(home, 'default'), FACT_SEGMENT)
    const time = Date.now()
    files.write(segmentName(9), [
      {id: newId(time), content: 'the ferry leaves at six', tags: [], created_at: new Date(time).toISOString()},
    ])
    assert.equal((await add(session, 'the ferry leaves at SIX')).duplicate, true)
    // It is the last segment now: the next add goes to its journal.
    const added = await add(session, 'the ferry returns at nine')
    const lines = readFileSync(files.journalPath(segmentName(9)), 'utf8')
      .trimEnd()
      .split('\n')
    assert.equal(lines.length, 2, 'a header and the add')
    assert.equal((JSON.parse(lines[1]!) as {add: {id: string}}).add.id, added.fact_id)
  })

  it('fail on an older segment damaged by hand in place, naming it, and leave it as it was', async () => {
    session = await warmServer()
    editInPlace(paths[1]!, '"records"', '"recordz"')
    const damaged = readFileSync(paths[1]!, 'utf8')
    const r = await session.call('memory_add', {content: 'the swan glides past'})
    assert.equal(r.isError, true)
    assert.match(JSON.stringify(r.content), /000002\.json/)
    assert.equal(readFileSync(paths[1]!, 'utf8'), damaged)
  })
})
