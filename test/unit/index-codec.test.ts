import assert from 'node:assert/strict'

import {decodeIndex, encodeIndex} from '../../src/index/index-codec.js'
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

function load(bytes: Buffer): FactIndex {
  return FactIndex.fromCompact(decodeIndex(bytes, STAMP.signature)!.index)
}

describe('the search layer saved index as bytes (index-codec)', () => {
  it('loads back into an index that finds and scores exactly as the one saved, at the cursor saved', () => {
    const index = sample()
    const bytes = encodeIndex(index.toCompact(), STAMP)
    assert.equal(decodeIndex(bytes, STAMP.signature)!.cursor, STAMP.cursor)
    const loaded = load(bytes)
    assert.equal(loaded.size, index.size)
    for (const query of QUERIES)
      for (const options of [{limit: 20}, {limit: 5, tags: ['work']}, {limit: 20, partial: true}])
        assert.deepEqual(loaded.search(query, options), index.search(query, options), query)
  })

  it('reads bytes that do not start at a multiple of 8, as a buffer shared with other data', () => {
    const index = sample()
    const bytes = encodeIndex(index.toCompact(), STAMP)
    const shifted = Buffer.alloc(bytes.length + 3)
    bytes.copy(shifted, 3)
    const loaded = load(shifted.subarray(3))
    for (const query of QUERIES) assert.deepEqual(loaded.search(query, {limit: 20}), index.search(query, {limit: 20}))
  })

  it('refuses bytes of another layout, of another build of the ranking code, or none at all', () => {
    const bytes = encodeIndex(sample().toCompact(), STAMP)
    assert.equal(decodeIndex(bytes, 'build-b'), undefined)
    const header = JSON.stringify({format: 'mem.compact-index.2', plain: {}, arrays: {}})
    const other = Buffer.concat([Buffer.alloc(4), Buffer.from(header)])
    other.writeUInt32LE(header.length)
    assert.equal(decodeIndex(other, STAMP.signature), undefined)
    assert.equal(decodeIndex(bytes.subarray(0, 10), STAMP.signature), undefined)
    assert.equal(decodeIndex(Buffer.alloc(0), STAMP.signature), undefined)
  })
})
