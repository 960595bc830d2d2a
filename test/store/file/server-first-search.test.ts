import assert from 'node:assert/strict'
import {createHash} from 'node:crypto'
import {readFileSync, statSync, writeFileSync} from 'node:fs'
import {spawnSync} from 'node:child_process'
import {join} from 'node:path'

import {connectMcp, type McpSession} from '../../helpers/mcp.js'
import {openedIn, openLogEnv, openLogLines} from '../../helpers/open-log.js'
import {mem, tempHome} from '../../helpers/mem.js'
import {stampFactSegments, writeFactSegments} from '../../helpers/segments.js'
import {FACT_SEGMENT} from '../../../src/store/file/collections.js'
import {newId} from '../../../src/store/ids.js'
import {agentDir} from '../../../src/store/file/paths.js'
import type {FactRecord} from '../../../src/store/records.js'
import {readRevision, revisionKey} from '../../../src/store/file/revision.js'
import {searchIndexPath} from '../../../src/store/file/index-keeper.js'
import {SegmentedFiles, segmentName} from '../../../src/store/file/segments.js'

/**
 * A server's first searches go by the saved index and the segment keys, as a cold search does,
 * instead of reading every segment; these tests hold it to the same guarantees: no stale text,
 * other processes' writes seen, and an import that leaves a current index behind.
 */

interface Found {
  count: number
  facts: {id: string; content: string}[]
}

async function serverSearch(session: McpSession, query: string): Promise<string[]> {
  const r = await session.call('memory_search', {query, limit: 100})
  assert.notEqual(r.isError, true, JSON.stringify(r.content))
  return (r.structuredContent as unknown as Found).facts.map((f) => f.content).sort()
}

function ok(home: string, args: string[], input?: string): string {
  const r = mem(home, args, input === undefined ? {} : {input})
  assert.equal(r.code, 0, r.stderr)
  return r.stdout
}

/**
 * The change-feed cursor in the saved index's header (src/store/file/change-feed.ts: 'files.2.'
 * and base64url JSON): which segments it was made from, by the hash of their keys, and how many
 * records each held.
 */
function savedSegments(home: string): {name: string; key: string; count: number}[] {
  const file = readFileSync(searchIndexPath(agentDir(home, 'default')))
  const header = JSON.parse(file.toString('utf8', 0, file.indexOf(10))) as {cursor: string}
  assert.ok(header.cursor.startsWith('files.2.'), header.cursor)
  const entries = JSON.parse(Buffer.from(header.cursor.slice('files.2.'.length), 'base64url').toString('utf8')) as [
    string,
    string,
    number,
  ][]
  return entries.map(([name, key, count]) => ({name, key, count}))
}

/**
 * Every fact segment with the hash of the key a reader computes for it now (revision counter
 * and file identity), as the feed's cursor keeps it, and how many records it holds.
 */
function currentSegments(home: string): {name: string; key: string; count: number}[] {
  const dir = agentDir(home, 'default')
  const files = new SegmentedFiles<FactRecord>(dir, FACT_SEGMENT)
  const revision = readRevision(dir)
  return files.names().map((name) => ({
    name,
    key: hashOf(`${revisionKey(revision, `facts/${name}`) ?? '-'}|${files.fingerprint(name)}`),
    count: files.read(name).records.length,
  }))
}

function hashOf(key: string): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 16)
}

/** A word of letters only, one for each `i`, none of them a word the tests search for. */
function fillerWord(i: number): string {
  return `z${[2, 1, 0].map((p) => String.fromCharCode(97 + (Math.floor(i / 26 ** p) % 26))).join('')}`
}

/**
 * 1,000 facts of filler in a segment after the others, later than theirs: the search layer
 * saves an index only once it holds 1,000 facts, and these tests start from a saved one.
 */
function addFiller(home: string): void {
  const files = new SegmentedFiles<FactRecord>(agentDir(home, 'default'), FACT_SEGMENT)
  const next = files.names().length + 1
  let time = Date.UTC(2025, 6, 1)
  files.write(
    segmentName(next),
    Array.from({length: 1000}, (_, i) => {
      time += 60_000
      return {id: newId(time), content: `the ${fillerWord(i)} note`, tags: [], created_at: new Date(time).toISOString()}
    }),
  )
}

/** Runs a cold search, and checks that it left a saved index behind. */
function savedBySearch(home: string, query: string): void {
  ok(home, ['search', '--json', query])
  statSync(searchIndexPath(agentDir(home, 'default')))
}

/** A mem.export file of `count` facts for agent "default". */
function exportFile(home: string, count: number): string {
  const lines = [JSON.stringify({type: 'header', format: 'mem.export', version: 1})]
  let time = Date.UTC(2025, 0, 1)
  for (let i = 0; i < count; i++) {
    time += 60_000
    lines.push(
      JSON.stringify({
        type: 'fact',
        agent_id: 'default',
        id: newId(time),
        content: `imported fact number ${i} about the ${i % 7 === 0 ? 'lighthouse' : 'harbour'}`,
        tags: [],
        created_at: new Date(time).toISOString(),
      }),
    )
  }
  const file = join(home, 'export.jsonl')
  writeFileSync(file, `${lines.join('\n')}\n`)
  return file
}

describe("a server's first search, from the saved index", function () {
  this.timeout(60_000)
  let home: string
  let cleanup: () => void
  let session: McpSession | undefined

  beforeEach(() => {
    ;({home, cleanup} = tempHome())
  })

  afterEach(async () => {
    await session?.close()
    session = undefined
    cleanup()
  })

  it('mem import leaves a saved index that is current, and the first search is served from it', async () => {
    const file = exportFile(home, 2500)
    ok(home, ['import', '--json', file])
    const index = searchIndexPath(agentDir(home, 'default'))
    statSync(index)
    assert.deepEqual(savedSegments(home), currentSegments(home), 'the index vouches for every segment as it is')
    const before = readFileSync(index)

    session = await connectMcp(home)
    const found = await serverSearch(session, 'lighthouse')
    assert.equal(found.length, 100)
    assert.ok(found.every((c) => c.includes('lighthouse')))
    assert.deepEqual(readFileSync(index), before, 'nothing had to be indexed again: the index was not saved anew')
  })
  it('never serves a segment edited by hand between the start and the first search, in place with its time put back', async () => {
    const paths = writeFactSegments(home, 30, 10, (i) =>
      i === 3 ? 'the heron fishes at dawn' : `the otter number ${i} swims`,
    )
    addFiller(home)
    savedBySearch(home, 'otter')
    const saved = readFileSync(searchIndexPath(agentDir(home, 'default')))
    session = await connectMcp(home)
    // Same length, same inode, modification time put back: only the status-change time moves.
    const text = readFileSync(paths[0]!, 'utf8')
    writeFileSync(`${home}/ref`, '')
    spawnSync('touch', ['-r', paths[0]!, `${home}/ref`])
    writeFileSync(paths[0]!, text.replace('heron', 'baron'))
    spawnSync('touch', ['-r', `${home}/ref`, paths[0]!])
    assert.deepEqual(
      readFileSync(searchIndexPath(agentDir(home, 'default'))),
      saved,
      'the index still vouches for the old text',
    )

    assert.deepEqual(await serverSearch(session, 'baron'), ['the baron fishes at dawn'])
    assert.deepEqual(await serverSearch(session, 'heron'), [])
    assert.deepEqual(
      await serverSearch(session, 'fishes'),
      ['the baron fishes at dawn'],
      'a hit shows the text as it is now',
    )
  })

  it('re-reads a segment changed by hand after the first search, before every later search, including its hits', async () => {
    const paths = writeFactSegments(home, 30, 10, (i) =>
      i === 3 ? 'the heron fishes at dawn' : `the otter number ${i} swims`,
    )
    addFiller(home)
    savedBySearch(home, 'otter')
    // A mark in the first segment's journal: its hit is then read with the whole segment, whose
    // compact copy the server keeps, and that copy must not outlive the file it was made of.
    const gone = (JSON.parse(ok(home, ['search', '--json', 'otter number 7'])) as Found).facts[0]!
    assert.equal(gone.content, 'the otter number 7 swims')
    ok(home, ['reflect', 'delete', '--json', '-f', gone.id])
    session = await connectMcp(home)
    assert.deepEqual(await serverSearch(session, 'fishes'), ['the heron fishes at dawn'])
    writeFileSync(paths[0]!, readFileSync(paths[0]!, 'utf8').replace('heron', 'baron'))
    assert.deepEqual(await serverSearch(session, 'fishes'), ['the baron fishes at dawn'])
    writeFileSync(
      paths[0]!,
      readFileSync(paths[0]!, 'utf8').replace('the otter number 4 swims', 'the otter number 4 dives'),
    )
    assert.deepEqual(await serverSearch(session, 'dives'), ['the otter number 4 dives'])
    assert.ok(!(await serverSearch(session, 'swims')).includes('the otter number 4 swims'))
  })

  it('finds a fact another process added before the first search, and after it', async () => {
    writeFactSegments(home, 30, 10, (i) => `the otter number ${i} swims`)
    addFiller(home)
    savedBySearch(home, 'otter')
    session = await connectMcp(home)
    ok(home, ['add', '--json', 'the kingfisher nests under the bridge'])
    assert.deepEqual(await serverSearch(session, 'kingfisher'), ['the kingfisher nests under the bridge'])
    ok(home, ['add', '--json', 'the kingfisher has two chicks'])
    const nests = (JSON.parse(ok(home, ['search', '--json', 'nests'])) as Found).facts[0]!.id
    ok(home, ['reflect', 'delete', '--json', '-f', nests])
    assert.deepEqual(await serverSearch(session, 'kingfisher'), ['the kingfisher has two chicks'])
  })

  it('adds without reading every fact, and still refuses a duplicate stored in an older segment', async () => {
    writeFactSegments(home, 30, 10, (i) => (i === 2 ? 'the weir floods in March' : `the otter number ${i} swims`))
    addFiller(home)
    savedBySearch(home, 'otter')
    session = await connectMcp(home)
    assert.equal((await serverSearch(session, 'otter')).length, 29)
    const again = await session.call('memory_add', {content: 'The weir  floods in march'})
    assert.notEqual(again.isError, true, JSON.stringify(again.content))
    assert.equal((again.structuredContent as {duplicate?: boolean}).duplicate, true)
    // Again with the digests held: confirmed from the segment read whole, then from the copy kept of it.
    const later = await session.call('memory_add', {content: 'THE WEIR FLOODS IN MARCH'})
    assert.equal((later.structuredContent as {duplicate?: boolean}).duplicate, true)
    const last = await session.call('memory_add', {content: 'the weir floods in march'})
    assert.equal((last.structuredContent as {duplicate?: boolean}).duplicate, true)
    const added = await session.call('memory_add', {content: 'the heron fishes at dawn'})
    assert.notEqual((added.structuredContent as {duplicate?: boolean}).duplicate, true)
    assert.deepEqual(await serverSearch(session, 'heron'), ['the heron fishes at dawn'])
    const listed = JSON.parse(ok(home, ['list', '--json', '-n', '10000'])) as {facts: unknown[]}
    assert.equal(listed.facts.length, 1031)
  })

  it('answers a fact added again word for word with the one an older segment stores, never a turn that says the same', async () => {
    const weir = 'the weir floods in March'
    writeFactSegments(
      home,
      30,
      10,
      (i) => (i === 2 || i === 5 ? weir : `the otter number ${i} swims`),
      (i) => (i === 2 ? 'river-talk' : undefined),
    )
    addFiller(home)
    savedBySearch(home, 'otter')
    const listed = JSON.parse(ok(home, ['list', '--json', '-n', '10000'])) as {
      facts: {id: string; content: string; thread?: string}[]
    }
    const stored = listed.facts.find((f) => f.content === weir && f.thread === undefined)!
    session = await connectMcp(home)
    // The first add hashes the older segments; the next finds the hash and reads its record alone
    // (no search has read the segment, whose copy would answer instead).
    const first = await session.call('memory_add', {content: 'the heron fishes at dawn'})
    assert.equal((first.structuredContent as {duplicate?: boolean}).duplicate, false)
    const again = await session.call('memory_add', {content: weir})
    assert.notEqual(again.isError, true, JSON.stringify(again.content))
    assert.deepEqual(
      {
        duplicate: (again.structuredContent as {duplicate?: boolean}).duplicate,
        id: (again.structuredContent as {fact_id: string}).fact_id,
      },
      {duplicate: true, id: stored.id},
    )
    const after = JSON.parse(ok(home, ['list', '--json', '-n', '10000'])) as {facts: unknown[]}
    assert.equal(after.facts.length, 1031)
  })

  it('fails a search on a segment damaged before the first search, naming it, and leaves it as it was', async () => {
    const paths = writeFactSegments(home, 30, 10, (i) => `the otter number ${i} swims`)
    addFiller(home)
    savedBySearch(home, 'otter')
    session = await connectMcp(home)
    writeFileSync(paths[1]!, '{"format":')
    const r = await session.call('memory_search', {query: 'otter'})
    assert.equal(r.isError, true)
    assert.match(JSON.stringify(r.content), /000002\.json/)
    assert.equal(readFileSync(paths[1]!, 'utf8'), '{"format":')
  })

  it('reads, for its first search, only the segments holding its hits: the saved index vouches for the rest', async () => {
    writeFactSegments(home, 40, 10, (i) => (i === 35 ? 'the barn owl hunts at night' : `the otter number ${i} swims`))
    const dir = agentDir(home, 'default')
    addFiller(home)
    stampFactSegments(home, 5)
    savedBySearch(home, 'otter')
    const log = join(home, 'events.log')
    session = await connectMcp(home, {env: openLogEnv(log, {answers: true})})
    assert.deepEqual(await serverSearch(session, 'owl'), ['the barn owl hunts at night'])
    const opened = openedIn(openLogLines(log, {untilAnswer: true}), join(dir, 'facts'))
    assert.deepEqual(opened, [segmentName(4)], 'the segment of the hit, and no other')
  })
})
