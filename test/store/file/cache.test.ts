import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {crc32} from 'node:zlib'

import {connectMcp, type McpSession} from '../../helpers/mcp.js'
import {BIN, childEnv, mem, memAsync, tempHome} from '../../helpers/mem.js'
import {stall, startMem, untilWriting} from '../../torture/helpers.js'
import {stampFactSegments} from '../../helpers/segments.js'
import {FACT_SEGMENT} from '../../../src/store/file/collections.js'
import {newId} from '../../../src/store/ids.js'
import {agentDir} from '../../../src/store/file/paths.js'
import type {FactRecord} from '../../../src/store/records.js'
import {searchIndexPath} from '../../../src/store/file/index-keeper.js'
import {SegmentedFiles, segmentName} from '../../../src/store/file/segments.js'

interface Found {
  count: number
  facts: {id: string; content: string}[]
}

function search(home: string, query: string, extra: string[] = []): Found {
  const r = mem(home, ['search', '--json', '--limit', '100', ...extra, query])
  assert.equal(r.code, 0, r.stderr)
  return JSON.parse(r.stdout) as Found
}

function add(home: string, content: string): string {
  const r = mem(home, ['add', '--json', content])
  assert.equal(r.code, 0, r.stderr)
  return (JSON.parse(r.stdout) as {fact_id: string}).fact_id
}

async function serverSearch(session: McpSession, query: string): Promise<Found> {
  const r = await session.call('memory_search', {query, limit: 100})
  assert.notEqual(r.isError, true, JSON.stringify(r.content))
  return r.structuredContent as unknown as Found
}

const contents = (found: Found): string[] => found.facts.map((f) => f.content).sort()

/**
 * 6,000 facts in two segments, each with a word of letters only that sorts after "alpha",
 * "beta" and "note", so that the postings of the last of them ({@link lastWord}) end the saved
 * index, in a chunk of their own, and those of "alpha" (every tenth fact) begin it.
 */
function lastWordFacts(): string[][] {
  const facts = Array.from({length: 6000}, (_, i) => `the ${letterWord(i)} note ${i % 10 === 0 ? 'alpha' : 'beta'}`)
  return [facts.slice(0, 3000), facts.slice(3000)]
}

function letterWord(i: number): string {
  return `z${[2, 1, 0].map((p) => String.fromCharCode(97 + (Math.floor(i / 26 ** p) % 26))).join('')}`
}

const lastWord = letterWord(5999)

/**
 * The search layer saves an index only once it holds 1,000 facts (or over bytes it could not
 * use): enough facts for that, a word each, of letters only and beginning with "z", so that
 * they sort after every word the tests below search for and add 8 KiB of postings, all in the
 * first chunk.
 */
const FILLER = Array.from({length: 1000}, (_, i) => letterWord(i))

/** The saved index's body with the last posting's count changed, without its checksum: the last chunk fails it. */
function damageLastPosting(body: Buffer): Buffer {
  const damaged = Buffer.from(body)
  damaged.writeUInt32LE(damaged.readUInt32LE(damaged.length - 4) + 1, damaged.length - 4)
  return damaged
}

/** Copies an agent's folder away and back, as a restore from a backup does: the same bytes, new file identities. */
function restoreWhole(dir: string): void {
  cpSync(dir, `${dir}.copy`, {recursive: true, preserveTimestamps: true})
  rmSync(dir, {recursive: true})
  renameSync(`${dir}.copy`, dir)
}

/** Facts written straight into segment files, as another process (or an older mem) left them. */
function writeFacts(home: string, segments: string[][]): void {
  const files = new SegmentedFiles<FactRecord>(agentDir(home, 'default'), FACT_SEGMENT)
  let time = Date.UTC(2025, 0, 1)
  segments.forEach((texts, i) => {
    const records = texts.map((content) => {
      time += 60_000
      return {id: newId(time), content, tags: [], created_at: new Date(time).toISOString()}
    })
    files.write(segmentName(i + 1), records)
  })
}

describe('store caches across processes', function () {
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

  it('a running server sees facts other processes add and delete', async () => {
    add(home, 'the blue kettle is in the attic')
    session = await connectMcp(home)
    assert.deepEqual(contents(await serverSearch(session, 'kettle')), ['the blue kettle is in the attic'])

    const red = add(home, 'the red kettle is in the garage')
    assert.deepEqual(contents(await serverSearch(session, 'kettle')), [
      'the blue kettle is in the attic',
      'the red kettle is in the garage',
    ])

    assert.equal(mem(home, ['reflect', 'delete', '--fact', red]).code, 0)
    assert.deepEqual(contents(await serverSearch(session, 'kettle')), ['the blue kettle is in the attic'])
  })

  it('notices a segment rewritten without a revision stamp, and appends after it instead of over it', async () => {
    session = await connectMcp(home)
    await session.call('memory_add', {content: 'first lantern fact'})
    assert.equal((await serverSearch(session, 'lantern')).count, 1)

    // A writer that died after replacing the segment and before stamping the revision.
    const files = new SegmentedFiles<FactRecord>(agentDir(home, 'default'), FACT_SEGMENT)
    const seg = files.read(segmentName(1))
    const orphan: FactRecord = {
      id: newId(),
      content: 'orphan lantern fact',
      tags: [],
      created_at: new Date().toISOString(),
    }
    const revisionBefore = readFileSync(join(agentDir(home, 'default'), 'revision.json'), 'utf8')
    files.write(segmentName(1), [...seg.records, orphan])
    assert.equal(readFileSync(join(agentDir(home, 'default'), 'revision.json'), 'utf8'), revisionBefore)

    assert.deepEqual(contents(await serverSearch(session, 'lantern')), ['first lantern fact', 'orphan lantern fact'])
    await session.call('memory_add', {content: 'third lantern fact'})
    assert.deepEqual(contents(search(home, 'lantern')), [
      'first lantern fact',
      'orphan lantern fact',
      'third lantern fact',
    ])
  })

  it('loses no fact when CLI processes and a server add at the same time', async () => {
    session = await connectMcp(home)
    const s = session
    const cli = Array.from({length: 6}, (_, i) => memAsync(home, ['add', '--json', `walnut fact from the shell ${i}`]))
    const server = Array.from({length: 6}, (_, i) =>
      s.call('memory_add', {content: `walnut fact from the server ${i}`}),
    )
    const results = await Promise.all(cli)
    for (const r of results) assert.equal(r.code, 0, r.stderr)
    for (const r of await Promise.all(server)) assert.notEqual(r.isError, true)
    assert.equal((await serverSearch(session, 'walnut')).count, 12)
    assert.equal(search(home, 'walnut').count, 12)
  })
})

describe('saved search index', function () {
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

  const cachePath = (): string => searchIndexPath(agentDir(home, 'default'))

  it('is written by a cold search with private permissions, and gives the same results as no index', () => {
    writeFacts(home, [FILLER])
    for (const text of [
      'otters hold hands while sleeping',
      'sea otters use rocks as tools',
      'river otters live in dens',
    ])
      add(home, text)
    assert.equal(existsSync(cachePath()), false, 'adding facts builds no index')
    const first = search(home, 'otters rocks')
    assert.equal(statSync(cachePath()).mode & 0o777, 0o600)
    assert.equal(statSync(join(agentDir(home, 'default'), 'cache')).mode & 0o777, 0o700)
    const fromSaved = search(home, 'otters rocks')
    assert.deepEqual(fromSaved, first)
  })

  it('is saved from 1,000 facts on, or over bytes that could not be used whatever the size', () => {
    writeFacts(home, [FILLER.slice(2)])
    add(home, 'the otter sleeps by the weir')
    assert.equal(search(home, 'otter').count, 1)
    assert.equal(existsSync(cachePath()), false, '1,000 facts but one: no index is saved')
    add(home, 'the otter hunts at dusk')
    const full = search(home, 'otter')
    assert.equal(full.count, 2)
    assert.equal(readSaved().header.ids, 1000, 'saved once the index holds 1,000 facts')
    assert.deepEqual(search(home, 'otter'), full, 'loaded from the saved index')

    // Far below it: bytes that could not be used are saved over all the same, since every reader would rebuild them.
    const small = tempHome()
    try {
      add(small.home, 'the heron nests by the weir')
      assert.equal(search(small.home, 'heron').count, 1)
      const smallPath = searchIndexPath(agentDir(small.home, 'default'))
      assert.equal(existsSync(smallPath), false, 'one fact: no index is saved')
      mkdirSync(dirname(smallPath), {recursive: true})
      writeFileSync(smallPath, 'not an index')
      assert.equal(search(small.home, 'heron').count, 1)
      const file = readFileSync(smallPath)
      const header = JSON.parse(file.toString('utf8', 0, file.indexOf(10))) as Record<string, unknown>
      assert.deepEqual([header.format, header.ids], ['mem.search-index', 1], 'a usable index of one fact replaced it')
    } finally {
      small.cleanup()
    }
  })

  it('keeps threads: a cold search from the saved index brings the same context as a server, also after more turns', async () => {
    writeFacts(home, [FILLER])
    const turn = (content: string, thread?: string): void => {
      const r = mem(home, ['add', '--json', ...(thread ? ['--thread', thread] : []), content])
      assert.equal(r.code, 0, r.stderr)
    }
    turn('which heater did the landlord install?', 'flat')
    turn('a Dimplex panel, in the hallway', 'flat')
    turn('standalone: the bins go out on Monday')
    turn('the lease ends in March', 'flat')
    const first = search(home, 'heater')
    assert.equal(existsSync(cachePath()), true)
    const shape = (found: Found) =>
      found.facts.map((f) => [f.content, (f as {context_for?: string}).context_for !== undefined])
    assert.deepEqual(shape(first), [
      ['a Dimplex panel, in the hallway', true],
      ['which heater did the landlord install?', false],
      ['the lease ends in March', true],
    ])
    assert.deepEqual(search(home, 'heater'), first, 'loaded from the saved index')
    // A turn added after the save is linked into its thread by the loading process.
    turn('the heater timer is set to 7am', 'flat')
    const later = search(home, 'heater')
    session = await connectMcp(home)
    assert.deepEqual(await serverSearch(session, 'heater'), later)
    assert.ok(later.facts.every((f) => !f.content.startsWith('standalone')))
  })

  /** The saved file's header line and the bytes after it. */
  const readSaved = (): {header: Record<string, unknown>; body: Buffer} => {
    const file = readFileSync(cachePath())
    const eol = file.indexOf(10)
    return {header: JSON.parse(file.toString('utf8', 0, eol)) as Record<string, unknown>, body: file.subarray(eol + 1)}
  }
  const writeSaved = (header: Record<string, unknown>, body: Buffer): void =>
    writeFileSync(cachePath(), Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), body]))

  it('is rebuilt when missing, unreadable or from another format', () => {
    writeFacts(home, [FILLER])
    add(home, 'the gazebo paint is sage green')
    add(home, 'the fence paint is white')
    const expected = search(home, 'paint')
    assert.equal(expected.count, 2)
    const {header, body} = readSaved()
    assert.equal(header.format, 'mem.search-index')
    assert.equal(header.version, 11)
    assert.match(header.cursor as string, /^files\.2\./)

    const bad: Buffer[] = [
      Buffer.from(''),
      Buffer.from('{"format": "mem.search-index", "signature"'),
      Buffer.from('[1,2,3]\n'),
      Buffer.from(
        JSON.stringify({
          format: 'mem.search-index',
          signature: header.signature,
          index: {version: 2, facts: [], terms: []},
        }),
      ),
      // Cut short, or one integer longer than the header says.
      Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), body.subarray(0, body.length - 4)]),
      Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), body, Buffer.alloc(4)]),
    ]
    for (const bytes of bad) {
      writeFileSync(cachePath(), bytes)
      assert.deepEqual(search(home, 'paint'), expected)
      assert.deepEqual(readSaved(), {header, body}, 'a usable index was saved again')
    }
    // Another version, another build of the ranking code, the other byte order, no cursor or
    // one the store cannot read: never read, or caught up from no cursor (a reset).
    for (const changed of [
      {version: 10},
      {version: 12},
      {signature: 'other'},
      {endian: header.endian === 'LE' ? 'BE' : 'LE'},
      {cursor: undefined},
      {cursor: 'files.2.bm90IGEgY3Vyc29y'},
    ]) {
      writeSaved({...header, ...changed}, body)
      assert.deepEqual(search(home, 'paint'), expected)
      assert.deepEqual(readSaved(), {header, body}, `rebuilt after ${JSON.stringify(changed)}`)
    }
  })

  /**
   * Where the postings start in the index part: after the text blocks read whole, the line
   * offsets (one per 32 lines of ids, terms, words and dates), the per-fact numbers (tag list,
   * thread, length, place in creation order) and where each term's postings start, the per-fact
   * byte saying whether it asks, their padding, and the ids and dates (read where a search asks,
   * like the postings).
   */
  const postingsAt = (header: Record<string, unknown>): number => {
    const bytes = header.bytes as Record<string, number>
    const text = bytes.terms! + bytes.words! + bytes.threads! + bytes.tags!
    const facts = header.ids as number
    const terms = header.terms as number
    const blocks = (n: number) => Math.ceil(n / 32)
    const integers = 2 * blocks(facts) + blocks(terms) + blocks(header.words as number) + 4 * facts + terms + 1
    const rest = ((text + 7) & ~7) + 8 * facts + 4 * integers + facts
    return ((rest + 3) & ~3) + bytes.ids! + bytes.dates!
  }
  const crc = (bytes: Buffer): string => crc32(bytes).toString(16).padStart(8, '0')

  it('is rebuilt when its numbers do not describe an index: a fact out of range, a count of zero', () => {
    writeFacts(home, [FILLER])
    add(home, 'the heron nests by the weir')
    add(home, 'the heron left in autumn')
    // The first postings are those of the first term in sorted order (the filler's words sort
    // after it), which the search reads.
    const expected = search(home, 'autumn')
    const {header, body} = readSaved()
    // The first posting as saved: a fact of the index, a count of at least one.
    assert.ok(body.readUInt32LE(postingsAt(header)) < (header.ids as number))
    assert.ok(body.readUInt32LE(postingsAt(header) + 4) >= 1)
    for (const value of [0xffffffff, 0]) {
      const broken = Buffer.from(body)
      // The first posting: fact, then count. A fact past the index, then a count of zero.
      broken.writeUInt32LE(value, value === 0 ? postingsAt(header) + 4 : postingsAt(header))
      // With a checksum that matches (the postings' one chunk), so that the numbers themselves are what is checked.
      writeSaved(
        {...header, chunks: {...(header.chunks as object), postings: [crc(broken.subarray(postingsAt(header)))]}},
        broken,
      )
      assert.deepEqual(search(home, 'autumn'), expected)
      assert.deepEqual(readSaved(), {header, body})
    }
  })

  it('reads only the postings a search needs, and rebuilds when a chunk it reads fails its checksum', function () {
    this.timeout(120_000)
    writeFacts(home, lastWordFacts())
    const alpha = search(home, 'alpha')
    const last = search(home, lastWord)
    assert.equal(alpha.count, 100)
    assert.equal(last.count, 1)
    const {header, body} = readSaved()
    assert.ok((header.chunks as {postings: string[]}).postings.length >= 3, 'the postings span several chunks')
    const damaged = damageLastPosting(body)
    writeSaved(header, damaged)
    assert.deepEqual(search(home, 'alpha'), alpha)
    assert.deepEqual(readSaved().body, damaged, 'a search that reads no damaged chunk leaves the file as it is')
    assert.deepEqual(search(home, lastWord), last)
    assert.deepEqual(readSaved(), {header, body}, 'a search that reads the damaged chunk saves the index again')
  })

  it("takes in a fact added since it was saved without reading the postings of the fact's terms", function () {
    this.timeout(120_000)
    writeFacts(home, lastWordFacts())
    const alpha = search(home, 'alpha')
    const {header, body} = readSaved()
    const damaged = damageLastPosting(body)
    writeSaved(header, damaged)
    // The new fact's word has its postings in the damaged chunk: reading them would fail the check.
    add(home, `the ${lastWord} again`)
    const ids = (found: Found) => found.facts.map((f) => f.id)
    assert.deepEqual(ids(search(home, 'alpha')), ids(alpha))
    assert.deepEqual(readSaved().body, damaged, "the search read none of the added word's postings")
    assert.equal(search(home, lastWord).count, 2)
    assert.notDeepEqual(
      readSaved().body,
      damaged,
      'a search that reads them finds the damage and saves the index again',
    )
  })

  it('is rebuilt when a byte of it changed: a letter of a term, a number of a pair, the checksum no longer matches', () => {
    writeFacts(home, [FILLER])
    add(home, 'the otter sleeps by the weir')
    add(home, 'the otter hunts at dusk')
    const expected = search(home, 'otter')
    const {header, body} = readSaved()
    // A changed letter in a term of the index (still a valid term list), then a changed count in the last posting.
    for (const at of [body.indexOf('dusk'), body.length - 4]) {
      assert.ok(at >= 0)
      const changed = Buffer.from(body)
      if (at === body.length - 4) changed.writeUInt32LE(changed.readUInt32LE(at) + 1, at)
      else changed.write('dawn', at)
      writeSaved(header, changed)
      assert.deepEqual(search(home, 'otter'), expected)
      assert.deepEqual(readSaved(), {header, body}, 'saved again')
    }
  })

  it('replaces the JSON index earlier versions saved', () => {
    writeFacts(home, [FILLER])
    add(home, 'the kayak is blue')
    const legacy = join(agentDir(home, 'default'), 'cache', 'search-index.json')
    search(home, 'kayak')
    writeFileSync(legacy, '{"format":"mem.search-index","signature":"old","index":{"version":2,"facts":[],"terms":[]}}')
    add(home, 'the second kayak is red')
    // A full rebuild saves anew, and the old file goes with it.
    writeFileSync(cachePath(), '')
    assert.equal(search(home, 'kayak').count, 2)
    assert.equal(existsSync(legacy), false)
    assert.equal(readSaved().header.version, 11)
  })

  it('is skipped, not fatal, when it cannot be saved', () => {
    // Enough facts that the search tries to save its index.
    writeFacts(home, [FILLER])
    add(home, 'the compost bin is behind the shed')
    writeFileSync(join(agentDir(home, 'default'), 'cache'), 'a file where the cache folder would go')
    assert.deepEqual(contents(search(home, 'compost')), ['the compost bin is behind the shed'])
    assert.equal(
      readFileSync(join(agentDir(home, 'default'), 'cache'), 'utf8'),
      'a file where the cache folder would go',
    )
  })

  it('is brought up to date with facts added, replaced and deleted since it was saved', () => {
    writeFacts(home, [FILLER])
    const a = add(home, 'the canoe is stored at the boathouse')
    const b = add(home, 'the canoe paddles are in the shed')
    search(home, 'canoe')
    const saved = readFileSync(cachePath())

    add(home, 'the canoe needs new varnish')
    assert.equal(mem(home, ['reflect', 'delete', '--fact', a]).code, 0)
    assert.equal(
      mem(home, ['reflect', 'update', '--fact', b, '--content', 'the canoe paddles are in the garage']).code,
      0,
    )
    assert.deepEqual(readFileSync(cachePath()), saved, 'writes leave the saved index alone')

    assert.deepEqual(contents(search(home, 'canoe')), [
      'the canoe needs new varnish',
      'the canoe paddles are in the garage',
    ])
  })

  it('is never trusted over the segments: facts it lists that the segments lack are not returned', () => {
    // An index saved in another home, with facts this home never had.
    const other = tempHome()
    try {
      writeFacts(other.home, [FILLER])
      add(other.home, 'the lighthouse keeper feeds the gulls')
      search(other.home, 'lighthouse')
      writeFacts(home, [FILLER])
      add(home, 'the lighthouse lamp was replaced in spring')
      search(home, 'lighthouse')
      writeFileSync(cachePath(), readFileSync(searchIndexPath(agentDir(other.home, 'default'))))
    } finally {
      other.cleanup()
    }
    assert.deepEqual(contents(search(home, 'lighthouse')), ['the lighthouse lamp was replaced in spring'])
  })

  it('is not merely appended to when a fact reappears between facts it holds: it answers as one rebuilt', () => {
    writeFacts(home, [['alpha heron note', 'beta heron note', 'gamma heron note'], FILLER])
    const files = new SegmentedFiles<FactRecord>(agentDir(home, 'default'), FACT_SEGMENT)
    const all = files.read(segmentName(1)).records
    const withoutBeta = all.map((f, i) => (i === 1 ? {...f, deleted_at: new Date().toISOString()} : f))
    files.write(segmentName(1), withoutBeta)
    assert.equal(search(home, 'heron').count, 2)
    assert.equal(existsSync(cachePath()), true)
    // The deleted fact comes back in the middle (a restored backup): the records before the end
    // changed, so the segment's records are all taken in again, not only those appended.
    files.write(segmentName(1), all)
    const fresh = search(home, 'heron')
    writeFileSync(cachePath(), 'x')
    assert.deepEqual(search(home, 'heron'), fresh)
    assert.equal(fresh.count, 3)
  })
})

describe('what each command reads', function () {
  let home: string
  let cleanup: () => void

  beforeEach(() => {
    ;({home, cleanup} = tempHome())
  })

  afterEach(() => cleanup())

  it('a corrupt older segment fails add and search alike, even though add only needs the last, and is left untouched', () => {
    writeFacts(home, [
      Array.from({length: FACT_SEGMENT.maxRecords}, (_, i) => `old mackerel fact ${i}`),
      ['newest mackerel fact'],
    ])
    assert.equal(mem(home, ['add', '--json', 'a first mackerel fact from the CLI']).code, 0)
    const older = join(agentDir(home, 'default'), 'facts', segmentName(1))
    writeFileSync(older, '{"format": "mem.facts", "version": 1, "records": [')
    const before = readFileSync(older)

    for (const args of [
      ['add', '--json', 'one more mackerel fact'],
      ['search', '--json', 'mackerel'],
      ['resume', '--json', '--on-missing', 'empty'],
    ]) {
      const r = mem(home, args)
      assert.equal(r.code, 1, `${args[0]}: ${r.stderr}`)
      assert.equal((JSON.parse(r.stdout) as {error: {code: string}}).error.code, 'corrupt_file')
    }
    assert.deepEqual(readFileSync(older), before)
    assert.equal(existsSync(searchIndexPath(agentDir(home, 'default'))), false)
  })

  /** Runs `mem` and lists the fact segment files it opened, in order. */
  const segmentsOpened = (args: string[]): {result: ReturnType<typeof mem>; opened: string[]} => {
    const out = join(home, 'opened.json')
    // Records every path opened through node:fs, for the bundled code and its ES imports alike.
    const trace = `import fs from 'node:fs'; import {syncBuiltinESMExports} from 'node:module'
      const seen = []; const write = fs.writeFileSync; let inside = false
      // Once per call: readFileSync opens the file through openSync itself.
      for (const name of ['openSync', 'readFileSync']) { const real = fs[name]; fs[name] = function (path, ...rest) { if (typeof path === 'string' && !inside) seen.push(path); const was = inside; inside = true; try { return real.call(this, path, ...rest) } finally { inside = was } } }
      syncBuiltinESMExports()
      process.on('exit', () => write(${JSON.stringify(out)}, JSON.stringify(seen)))`
    const r = spawnSync(
      process.execPath,
      ['--import', `data:text/javascript,${encodeURIComponent(trace)}`, BIN, ...args],
      {env: childEnv(home), encoding: 'utf8'},
    )
    const factsDir = join(agentDir(home, 'default'), 'facts')
    const opened = (JSON.parse(readFileSync(out, 'utf8')) as string[])
      .filter((p) => p.startsWith(factsDir))
      .map((p) => p.slice(factsDir.length + 1))
      // Reading a segment opens its journal first (there is none here): one read of one segment.
      .filter((name) => !name.endsWith('.jsonl'))
    return {result: {code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr}, opened}
  }

  it('a cold search in a home restored whole reads every segment once, and then only what its query needs', () => {
    // The filler first, so that the index is saved (from 1,000 facts) and adds go to the otter's segment.
    writeFacts(home, [FILLER, ['the kestrel hovers'], ['a barn owl hunts'], ['the heron fishes'], ['the otter sleeps']])
    stampFactSegments(home, 5)
    const before = segmentsOpened(['search', '--json', 'owl'])
    assert.equal(existsSync(searchIndexPath(agentDir(home, 'default'))), true)
    const dir = agentDir(home, 'default')
    restoreWhole(dir)
    const sorted = (r: {opened: string[]}) => [...new Set(r.opened)].sort()
    const all = [segmentName(1), segmentName(2), segmentName(3), segmentName(4), segmentName(5)]
    const first = segmentsOpened(['search', '--json', 'owl'])
    assert.deepEqual(sorted(first), all, 'nothing vouches for the restored files: each is read')
    assert.equal(first.result.stdout, before.result.stdout)
    const next = segmentsOpened(['search', '--json', 'owl'])
    assert.deepEqual(sorted(next), [segmentName(3)], 'then only the segment holding the hit')
    assert.equal(next.result.stdout, before.result.stdout)
    // A segment that takes appends moves with every add: a search leaves vouching for it to the writers.
    add(home, 'the owl again')
    const revision = readFileSync(join(dir, 'revision.json'), 'utf8')
    assert.equal(search(home, 'owl').count, 2)
    assert.equal(readFileSync(join(dir, 'revision.json'), 'utf8'), revision, 'the search after an add stamped nothing')
  })

  it('a cold search with restored files to vouch for does not wait for a writer that holds the lock', async function () {
    this.timeout(60_000)
    writeFacts(home, [['the kestrel hovers'], ['a barn owl hunts'], ['the heron fishes'], ['the otter sleeps']])
    stampFactSegments(home, 4)
    assert.equal(search(home, 'owl').count, 1)
    const dir = agentDir(home, 'default')
    restoreWhole(dir)
    // A writer stalled in its fsync (a slow disk) keeps the lock for 4 s.
    const slow = startMem(home, ['add', 'the stalled writer', '--json'], {prefix: stall('fsync', 4000, 'exit')})
    let slowDone = false
    void slow.done.then(() => (slowDone = true))
    await untilWriting(home, 'default', undefined, () => slowDone)
    const r = await memAsync(home, ['search', '--json', 'owl'], {env: {MEM_LOCK_TIMEOUT_MS: '30000'}})
    assert.equal(r.code, 0, r.stderr)
    assert.equal((JSON.parse(r.stdout) as Found).count, 1)
    assert.equal(slowDone, false, 'the search answered while the writer still held the lock')
    assert.equal((await slow.done).code, 0)
  })

  it('a cold search reads only the fact segments that changed since the index was saved, and those holding its hits', () => {
    // The filler first (a saved index takes 1,000 facts), so that adds go to the owl's segment.
    writeFacts(home, [
      FILLER,
      ['the kestrel hovers over the verge'],
      ['a kestrel nested in the barn'],
      ['the barn owl hunts at night'],
    ])
    stampFactSegments(home, 4)
    const sorted = (r: {opened: string[]}) => [...new Set(r.opened)].sort()
    const first = segmentsOpened(['search', '--json', 'kestrel'])
    // The search layer keeps no record: the change feed reads every segment once, then the hits
    // are read from their segments to be shown.
    assert.deepEqual(
      first.opened.slice(0, 4),
      [segmentName(1), segmentName(2), segmentName(3), segmentName(4)],
      'no saved index yet: every segment is read, in order',
    )
    assert.deepEqual(
      [...first.opened.slice(4)].sort(),
      [segmentName(2), segmentName(3)],
      'then only the segments holding the hits, once each',
    )
    assert.equal(existsSync(searchIndexPath(agentDir(home, 'default'))), true)

    const unchanged = segmentsOpened(['search', '--json', 'kestrel'])
    assert.deepEqual(
      sorted(unchanged),
      [segmentName(2), segmentName(3)],
      'nothing changed: the saved index, then only the segments holding the hits, to show them',
    )
    assert.equal(unchanged.result.stdout, first.result.stdout)
    assert.deepEqual(sorted(segmentsOpened(['search', '--json', 'owl'])), [segmentName(4)])
    assert.deepEqual(sorted(segmentsOpened(['search', '--json', 'nothing-holds-this'])), [], 'no hit: no segment')

    const added = add(home, 'a kestrel perched on the barn roof')
    const afterAdd = segmentsOpened(['search', '--json', 'hovers'])
    assert.deepEqual(sorted(afterAdd), [segmentName(2), segmentName(4)], 'the segment the fact went to, and the hit')
    const withAdded = JSON.parse(segmentsOpened(['search', '--json', 'kestrel']).result.stdout) as Found
    assert.deepEqual(withAdded.facts.map((f) => f.id).includes(added), true)

    const nested = (JSON.parse(first.result.stdout) as Found).facts.find((f) =>
      f.content.startsWith('a kestrel nested'),
    )!
    assert.equal(mem(home, ['reflect', 'delete', '--fact', nested.id]).code, 0)
    const afterDelete = segmentsOpened(['search', '--json', 'owl'])
    // The index was not saved again for one added fact, so the owl's segment still differs from it.
    assert.deepEqual(
      sorted(afterDelete),
      [segmentName(3), segmentName(4)],
      'the segment holding the deleted fact, and the one added to (which holds the hit)',
    )
    const left = contents(JSON.parse(segmentsOpened(['search', '--json', 'kestrel']).result.stdout) as Found)
    assert.equal(left.includes('a kestrel nested in the barn'), false)
    assert.deepEqual(
      left.filter((c) => c.includes('kestrel')),
      ['a kestrel perched on the barn roof', 'the kestrel hovers over the verge'],
    )
  })

  it('a cold mem add finds a duplicate in an older segment while reading only the last one', () => {
    writeFacts(home, [
      ['the heron fishes at dawn', 'the weir floods in spring'],
      ['the barn owl hunts at night'],
      ['a kestrel on the verge'],
    ])
    const dir = agentDir(home, 'default')
    stampFactSegments(home, 3)
    const heron = (JSON.parse(mem(home, ['list', '--json', '--limit', '100']).stdout) as Found).facts.find((f) =>
      f.content.startsWith('the heron'),
    )!

    const first = segmentsOpened(['add', '--json', 'The heron  fishes at DAWN'])
    assert.deepEqual(JSON.parse(first.result.stdout), {
      agent_id: 'default',
      stored: true,
      fact_id: heron.id,
      duplicate: true,
    })
    assert.deepEqual(
      first.opened,
      [segmentName(3), segmentName(1), segmentName(2)],
      'no digests yet: every segment is read and hashed',
    )

    const again = segmentsOpened(['add', '--json', 'the heron fishes at dawn'])
    assert.equal((JSON.parse(again.result.stdout) as {fact_id: string}).fact_id, heron.id)
    assert.deepEqual(
      again.opened,
      [segmentName(3), segmentName(1)],
      'the last segment, and the one whose digest holds the content',
    )

    const fresh = segmentsOpened(['add', '--json', 'a swift nests under the eaves'])
    assert.equal((JSON.parse(fresh.result.stdout) as {duplicate: boolean}).duplicate, false)
    assert.deepEqual(
      fresh.opened.filter((name) => /^\d{6}\.json$/.test(name) && name !== segmentName(3)),
      [],
      'no segment but the last one',
    )

    // A hand edit moves the segment's identity: its digest no longer vouches for it, and the guard follows the new text.
    const older = join(dir, 'facts', segmentName(1))
    writeFileSync(older, readFileSync(older, 'utf8').replace('the heron fishes at dawn', 'the heron fishes at dusk'))
    const dusk = JSON.parse(mem(home, ['add', '--json', 'the heron fishes at dusk']).stdout) as {
      fact_id: string
      duplicate: boolean
    }
    assert.deepEqual([dusk.fact_id, dusk.duplicate], [heron.id, true])
    const dawn = JSON.parse(mem(home, ['add', '--json', 'the heron fishes at dawn']).stdout) as {
      fact_id: string
      duplicate: boolean
    }
    assert.equal(dawn.duplicate, false)
  })

  it('a cold mem add does not trust digests of another version: it reads the segments they would vouch for', () => {
    writeFacts(home, [['the heron fishes at dawn'], ['the barn owl hunts at night'], ['a kestrel on the verge']])
    const dir = agentDir(home, 'default')
    stampFactSegments(home, 3)
    assert.equal(
      JSON.parse(segmentsOpened(['add', '--json', 'a swift nests under the eaves']).result.stdout).duplicate,
      false,
    )
    const path = join(dir, 'cache', 'duplicates.json')
    const saved = JSON.parse(readFileSync(path, 'utf8')) as {
      version: number
      segments: Record<string, {identity: string; hashes: unknown}>
    }
    assert.ok(Object.keys(saved.segments).length > 0, 'the first cold add saved digests')
    // The shape an older mem wrote (version 1: arrays of 16-character hashes), with the segments'
    // current identities: trusted, its hashes would never match and the heron would be stored twice.
    for (const segment of Object.values(saved.segments)) segment.hashes = ['AAAAAAAAAAAAAAAA']
    writeFileSync(path, JSON.stringify({segments: saved.segments}))

    const again = segmentsOpened(['add', '--json', 'The heron fishes at dawn'])
    assert.equal((JSON.parse(again.result.stdout) as {duplicate?: boolean}).duplicate, true)
    assert.ok(again.opened.includes(segmentName(1)), `the heron's segment is read: ${again.opened.join(', ')}`)
  })

  it('a corrupt older segment fails a search that has a saved index, and is left untouched', () => {
    writeFacts(home, [['the weir floods in spring'], ['the weir was rebuilt'], FILLER])
    assert.equal(search(home, 'weir').count, 2)
    assert.equal(existsSync(searchIndexPath(agentDir(home, 'default'))), true)
    const older = join(agentDir(home, 'default'), 'facts', segmentName(1))
    writeFileSync(older, '{"format": "mem.facts", "version": 2, "records": [')
    const r = mem(home, ['search', '--json', 'weir'])
    assert.equal(r.code, 1, r.stderr)
    assert.equal((JSON.parse(r.stdout) as {error: {code: string}}).error.code, 'corrupt_file')
    assert.equal(readFileSync(older, 'utf8'), '{"format": "mem.facts", "version": 2, "records": [')
  })

  it('mem add refuses a corrupt last segment and leaves it untouched', () => {
    writeFacts(home, [['a pelican fact']])
    const last = join(agentDir(home, 'default'), 'facts', segmentName(1))
    writeFileSync(last, 'not json')
    const r = mem(home, ['add', '--json', 'another pelican fact'])
    assert.equal(r.code, 1)
    assert.equal((JSON.parse(r.stdout) as {error: {code: string}}).error.code, 'corrupt_file')
    assert.equal(readFileSync(last, 'utf8'), 'not json')
  })
})
