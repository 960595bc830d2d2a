import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {createHash} from 'node:crypto'
import {readFileSync, statSync, writeFileSync} from 'node:fs'

import {connectMcp, type McpSession} from '../../helpers/mcp.js'
import {mem, tempHome} from '../../helpers/mem.js'
import {FACT_SEGMENT} from '../../../src/store/file/collections.js'
import {newId} from '../../../src/store/ids.js'
import {CachedSegments} from '../../../src/store/file/cached-segments.js'
import {segmentsVouched} from '../../../src/store/file/change-feed.js'
import {agentDir} from '../../../src/store/file/paths.js'
import type {FactRecord} from '../../../src/store/records.js'
import {readRevision, revisionKey} from '../../../src/store/file/revision.js'
import {searchIndexPath} from '../../../src/store/file/index-keeper.js'
import {SegmentedFiles, segmentName} from '../../../src/store/file/segments.js'

interface Found {
  count: number
  facts: {id: string; content: string}[]
}

function search(home: string, query: string): string[] {
  const r = mem(home, ['search', '--json', '--limit', '100', query])
  assert.equal(r.code, 0, r.stderr)
  return (JSON.parse(r.stdout) as Found).facts.map((f) => f.content).sort()
}

async function serverSearch(session: McpSession, query: string): Promise<string[]> {
  const r = await session.call('memory_search', {query, limit: 100})
  assert.notEqual(r.isError, true, JSON.stringify(r.content))
  return (r.structuredContent as unknown as Found).facts.map((f) => f.content).sort()
}

function run(command: string, args: string[]): void {
  const r = spawnSync(command, args, {encoding: 'utf8'})
  assert.equal(r.status, 0, r.stderr)
}

/** A word of letters only, one for each `i`, none of them a word the tests search for. */
function fillerWord(i: number): string {
  return `z${[2, 1, 0].map((p) => String.fromCharCode(97 + (Math.floor(i / 26 ** p) % 26))).join('')}`
}

/**
 * Three fact segments, written as mem writes them; the first is the one edited by hand. The
 * third holds 1,000 facts of filler, since the search layer saves an index only once it holds
 * 1,000 facts: the tests below are about a saved index that vouches for the old text.
 */
function seed(home: string): string {
  const files = new SegmentedFiles<FactRecord>(agentDir(home, 'default'), FACT_SEGMENT)
  let time = Date.UTC(2025, 0, 1)
  const segments = [
    ['the heron fishes at dawn', 'the kettle is in the attic', 'the otter sleeps by the weir'],
    ['the canoe is red', 'the tent is in the loft'],
    Array.from({length: 1000}, (_, i) => `the ${fillerWord(i)} note`),
  ]
  segments.forEach((texts, i) => {
    files.write(
      segmentName(i + 1),
      texts.map((content) => {
        time += 60_000
        return {id: newId(time), content, tags: [], created_at: new Date(time).toISOString()}
      }),
    )
  })
  return files.path(segmentName(1))
}

/**
 * Changes `from` to `to` (as long) inside the file, in place (same inode, same size), then puts
 * its modification time back with `touch -r`, as a careful hand edit or a sync tool would.
 */
function editKeepingSizeAndTime(path: string, from: string, to: string, reference: string): void {
  assert.equal(from.length, to.length)
  const text = readFileSync(path, 'utf8')
  assert.ok(text.includes(from))
  writeFileSync(path, text.replace(from, to))
  run('touch', ['-r', reference, path])
}

/** The file's identity as mem used to see it (without the status-change time). */
function oldIdentity(path: string): string {
  const st = statSync(path, {bigint: true})
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}`
}

describe('a segment edited by hand, keeping its size and modification time', function () {
  let home: string
  let cleanup: () => void
  let session: McpSession | undefined
  let segment: string
  let reference: string

  beforeEach(() => {
    ;({home, cleanup} = tempHome())
    segment = seed(home)
    // The segment as first written, modification time included, for touch -r and for a restore.
    reference = `${home}/000001.json.orig`
    run('cp', ['-p', segment, reference])
  })

  afterEach(async () => {
    await session?.close()
    session = undefined
    cleanup()
  })

  it('is read again by the next cold search: the new words find the fact, the old ones do not', () => {
    assert.deepEqual(search(home, 'heron'), ['the heron fishes at dawn'])
    statSync(searchIndexPath(agentDir(home, 'default')))
    const before = oldIdentity(segment)
    editKeepingSizeAndTime(segment, 'heron', 'baron', reference)
    assert.equal(oldIdentity(segment), before, 'inode, size and modification time are as they were')

    assert.deepEqual(search(home, 'baron'), ['the baron fishes at dawn'])
    assert.deepEqual(search(home, 'heron'), [])
    assert.deepEqual(search(home, 'fishes'), ['the baron fishes at dawn'], 'a hit shows the text as it is now')
  })

  it('is read again by a running server before its next search', async () => {
    session = await connectMcp(home)
    assert.deepEqual(await serverSearch(session, 'heron'), ['the heron fishes at dawn'])
    editKeepingSizeAndTime(segment, 'heron', 'baron', reference)

    assert.deepEqual(await serverSearch(session, 'baron'), ['the baron fishes at dawn'])
    assert.deepEqual(await serverSearch(session, 'heron'), [])
  })

  it('is read again by a server that starts with an index saved before the edit', async () => {
    assert.deepEqual(search(home, 'heron'), ['the heron fishes at dawn'])
    statSync(searchIndexPath(agentDir(home, 'default')))
    editKeepingSizeAndTime(segment, 'heron', 'baron', reference)

    session = await connectMcp(home)
    assert.deepEqual(await serverSearch(session, 'baron'), ['the baron fishes at dawn'])
    assert.deepEqual(await serverSearch(session, 'heron'), [])
  })

  it('is read again after a restore from a backup that keeps the old modification time', async () => {
    writeFileSync(segment, readFileSync(segment, 'utf8').replace('heron', 'baron'))
    assert.deepEqual(search(home, 'baron'), ['the baron fishes at dawn'])
    statSync(searchIndexPath(agentDir(home, 'default')))
    session = await connectMcp(home)
    assert.deepEqual(await serverSearch(session, 'baron'), ['the baron fishes at dawn'])

    // cp -p writes the backup's bytes into the same inode and puts its modification time back.
    run('cp', ['-p', reference, segment])
    assert.deepEqual(search(home, 'heron'), ['the heron fishes at dawn'])
    assert.deepEqual(search(home, 'baron'), [])
    assert.deepEqual(await serverSearch(session, 'heron'), ['the heron fishes at dawn'])
    assert.deepEqual(await serverSearch(session, 'baron'), [])
  })
})

interface Report {
  ok: boolean
  problems: {kind: string; path: string; fixed: boolean; problem: string}[]
}

function doctor(home: string, fix: boolean): Report {
  const r = mem(home, ['doctor', '--json', ...(fix ? ['--fix'] : [])])
  const report = JSON.parse(r.stdout) as Report
  assert.equal(r.code, report.ok ? 0 : 1, r.stderr)
  return report
}

/** A fact segment's key as a reader computes it now: its revision counter and its files' identity. */
function currentKey(dir: string, name: string): string {
  const files = new SegmentedFiles<FactRecord>(dir, FACT_SEGMENT)
  files.names()
  return `${revisionKey(readRevision(dir), `facts/${name}`) ?? '-'}|${files.fingerprint(name)}`
}

/**
 * The change-feed cursor (src/store/file/change-feed.ts: 'files.2.' and base64url JSON, an
 * entry per segment of name, hash of its key, count, hashes of its records, smallest and
 * largest id) with the hash of one segment's key replaced by that of `key`.
 */
function vouchingFor(cursor: string, name: string, key: string): string {
  const prefix = 'files.2.'
  assert.ok(cursor.startsWith(prefix), cursor)
  const entries = JSON.parse(Buffer.from(cursor.slice(prefix.length), 'base64url').toString('utf8')) as unknown[][]
  const entry = entries.find((e) => e[0] === name)!
  entry[1] = createHash('sha256').update(key).digest('base64url').slice(0, 16)
  return prefix + Buffer.from(JSON.stringify(entries)).toString('base64url')
}

describe('mem doctor and the saved search index', function () {
  let home: string
  let cleanup: () => void

  beforeEach(() => {
    ;({home, cleanup} = tempHome())
  })

  afterEach(() => cleanup())

  it('reports an index that disagrees with the fact files it vouches for, and --fix rebuilds it', () => {
    const segment = seed(home)
    assert.deepEqual(search(home, 'heron'), ['the heron fishes at dawn'])
    assert.deepEqual(doctor(home, false).problems, [], 'in order once saved')

    // The segment changes, and the index is made to vouch for the changed file: the key its
    // cursor keeps for the segment is set to the segment's key now, the revision counter and
    // the file's identity (as a file system without trustworthy times would leave it).
    writeFileSync(segment, readFileSync(segment, 'utf8').replace('heron', 'baron'))
    const dir = agentDir(home, 'default')
    const path = searchIndexPath(dir)
    const file = readFileSync(path)
    const eol = file.indexOf(10)
    const header = JSON.parse(file.toString('utf8', 0, eol)) as {cursor: string}
    const current = new CachedSegments(new SegmentedFiles<FactRecord>(dir, FACT_SEGMENT)).currentKeys(readRevision(dir))
    assert.deepEqual(
      [...segmentsVouched(current, header.cursor)!].sort(),
      ['000002.json', '000003.json'],
      'the edited segment moved',
    )
    header.cursor = vouchingFor(header.cursor, '000001.json', currentKey(dir, '000001.json'))
    assert.deepEqual(
      [...segmentsVouched(current, header.cursor)!].sort(),
      ['000001.json', '000002.json', '000003.json'],
      'the cursor now vouches for the edited segment',
    )
    writeFileSync(path, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), file.subarray(eol + 1)]))
    // A search trusts the index it is given: it finds the fact by its old word (and shows it as the file says).
    assert.deepEqual(search(home, 'heron'), ['the baron fishes at dawn'])

    const found = doctor(home, false)
    assert.equal(found.ok, false)
    assert.deepEqual(
      found.problems.map((p) => [p.kind, p.path, p.fixed]),
      [['search_index', path, false]],
    )
    assert.match(found.problems[0]!.problem, /disagrees with the fact files for 1 fact/)

    const fixed = doctor(home, true)
    assert.equal(fixed.ok, true)
    assert.deepEqual(
      fixed.problems.map((p) => [p.kind, p.fixed]),
      [['search_index', true]],
    )
    assert.deepEqual(search(home, 'baron'), ['the baron fishes at dawn'])
    assert.deepEqual(search(home, 'heron'), [])
    assert.equal(doctor(home, false).problems.length, 0)
  })

  it('says nothing of an index that does not load: every reader rebuilds it', () => {
    seed(home)
    assert.deepEqual(search(home, 'heron'), ['the heron fishes at dawn'])
    const path = searchIndexPath(agentDir(home, 'default'))
    const file = readFileSync(path)
    file[file.length - 1] = file.at(-1)! ^ 0xff
    writeFileSync(path, file)
    assert.deepEqual(doctor(home, false).problems, [])
    assert.deepEqual(search(home, 'heron'), ['the heron fishes at dawn'])
  })
})
