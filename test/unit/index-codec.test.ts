import assert from 'node:assert/strict'

import {bytesIn, decodeIndex, encodeIndex, joined, type IndexBytes} from '../../src/index/index-codec.js'
import {DamagedIndex} from '../../src/search/damaged-index.js'
import {FactIndex} from '../../src/search/fact-index.js'
import {newId} from '../../src/store/ids.js'

const WORDS = 'kubernetes cluster deploy friday backup postgres router attic garden tomato lisbon flight invoice'.split(
  ' ',
)

const STAMP = {cursor: 'pg.1.cursor', signature: 'build-a'}

/** An index of a few hundred facts with tags, threads, questions and a removed fact. */
function sample(): FactIndex {
  const index = new FactIndex()
  const start = Date.parse('2025-03-01T00:00:00.000Z')
  for (let i = 0; i < 300; i++) {
    const words = Array.from({length: 3 + (i % 7)}, (_, k) => WORDS[(i * 7 + k * 3) % WORDS.length]!)
    index.add({
      id: newId(start + i * 60_000),
      content: `${words.join(' ')} café-${i % 11}${i % 9 === 0 ? '?' : '.'}`,
      tags: i % 4 === 0 ? ['work'] : [],
      created_at: new Date(start + i * 60_000).toISOString(),
      ...(i % 3 === 0 ? {thread: `chat-${i % 5}`} : {}),
    })
  }
  return index
}

const QUERIES = ['kubernetes deploy', 'café', 'garden tomato friday', 'postgre', 'lisbn flight', 'router?']

function encoded(index: FactIndex): Buffer {
  return joined(encodeIndex(index, STAMP)!)
}

function load(bytes: Buffer, lazy = false): FactIndex {
  return FactIndex.fromCompact(decodeIndex(bytesIn(bytes), STAMP.signature, {lazy})!.index)
}

/** `bytes` as IndexBytes that count what is read of them, and whether they were closed. */
function counted(bytes: Buffer): IndexBytes & {readBytes: number; closed: boolean} {
  const source = bytesIn(bytes)
  const out = {
    size: source.size,
    readBytes: 0,
    closed: false,
    read(target: Uint8Array, offset: number, length: number, position: number) {
      const n = source.read(target, offset, length, position)
      out.readBytes += n
      return n
    },
    close() {
      out.closed = true
    },
  }
  return out
}

/** An index large enough that its postings span several 64 KiB chunks. */
function large(): FactIndex {
  const index = new FactIndex()
  const start = Date.parse('2025-01-01T00:00:00.000Z')
  for (let i = 0; i < 20_000; i++) {
    index.add({
      id: newId(start + i * 1000),
      content: `note ${i} about ${WORDS[i % WORDS.length]} and ${WORDS[(i * 5) % WORDS.length]} word${i % 997}`,
      tags: [],
      created_at: new Date(start + i * 1000).toISOString(),
    })
  }
  return index
}

describe('the search layer saved index as bytes (index-codec)', () => {
  it('loads back into an index that finds and scores exactly as the one saved, at the cursor saved', () => {
    const index = sample()
    const bytes = encoded(index)
    assert.equal(decodeIndex(bytesIn(bytes), STAMP.signature)!.cursor, STAMP.cursor)
    for (const lazy of [false, true]) {
      const loaded = load(bytes, lazy)
      assert.equal(loaded.size, index.size)
      for (const query of QUERIES)
        for (const options of [{limit: 20}, {limit: 5, tags: ['work']}, {limit: 20, partial: true}])
          assert.deepEqual(loaded.search(query, options), index.search(query, options), query)
    }
  })

  it('reads bytes that do not start at a multiple of 8, as a buffer shared with other data', () => {
    const index = sample()
    const bytes = encoded(index)
    const shifted = Buffer.alloc(bytes.length + 3)
    bytes.copy(shifted, 3)
    const loaded = load(shifted.subarray(3))
    for (const query of QUERIES) assert.deepEqual(loaded.search(query, {limit: 20}), index.search(query, {limit: 20}))
  })

  it('refuses bytes of another layout, of another build of the ranking code, or none at all', () => {
    const bytes = encoded(sample())
    assert.equal(decodeIndex(bytesIn(bytes), 'build-b'), undefined)
    const eol = bytes.indexOf(10)
    const header = JSON.parse(bytes.subarray(0, eol).toString()) as Record<string, unknown>
    for (const change of [{format: 'mem.compact-index.3'}, {version: 10}, {cursor: 7}]) {
      const other = Buffer.concat([Buffer.from(JSON.stringify({...header, ...change})), bytes.subarray(eol)])
      assert.equal(decodeIndex(bytesIn(other), STAMP.signature), undefined, JSON.stringify(change))
    }
    assert.equal(decodeIndex(bytesIn(bytes.subarray(0, 10)), STAMP.signature), undefined)
    assert.equal(decodeIndex(bytesIn(bytes.subarray(0, bytes.length - 1)), STAMP.signature), undefined)
    assert.equal(decodeIndex(bytesIn(Buffer.alloc(0)), STAMP.signature), undefined)
  })

  it('refuses bytes whose checked part changed, and closes them', () => {
    const bytes = encoded(sample())
    const damaged = Buffer.from(bytes)
    // A byte of the terms, just past the header line.
    damaged[bytes.indexOf(10) + 3]! ^= 0x20
    const source = counted(damaged)
    assert.equal(decodeIndex(source, STAMP.signature), undefined)
    assert.equal(source.closed, true)
  })

  it('read lazily, reads only the chunks a search needs, and a damaged chunk throws DamagedIndex from the search', () => {
    const index = large()
    const bytes = encoded(index)
    const source = counted(bytes)
    const decoded = decodeIndex(source, STAMP.signature, {lazy: true})!
    const loaded = FactIndex.fromCompact(decoded.index)
    assert.deepEqual(loaded.search('word5', {limit: 10}), index.search('word5', {limit: 10}))
    assert.ok(source.readBytes < bytes.length / 2, `read ${source.readBytes} of ${bytes.length} bytes`)
    assert.equal(source.closed, false, 'kept open while the index may read more')
    decoded.close()
    assert.equal(source.closed, true)

    // The last byte is in the last chunk of the postings.
    const damaged = Buffer.from(bytes)
    damaged[damaged.length - 1]! ^= 0xff
    const broken = FactIndex.fromCompact(decodeIndex(bytesIn(damaged), STAMP.signature, {lazy: true})!.index)
    assert.throws(() => {
      for (let i = 0; i < 997; i++) broken.search(`word${i}`, {limit: 10})
    }, DamagedIndex)
    assert.equal(decodeIndex(bytesIn(damaged), STAMP.signature), undefined, 'read whole, the damage is found at once')
  })
})
