import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  truncateSync,
  writeFileSync,
} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {appendVectors, readVectors, rewriteVectors, type VectorRecord} from '../../src/meaning/vector-file.js'
import {quantize} from '../../src/meaning/vector-index.js'
import {SyntheticVectors} from '../helpers/vectors.js'

const EMBEDDER = 'local:use-lite:1'
const DIMS = 32
const helper = fileURLToPath(new URL('../helpers/append-vectors.ts', import.meta.url))

function records(count: number, prefix = 'F', seed = 1): VectorRecord[] {
  const source = new SyntheticVectors(DIMS, seed, 5)
  return Array.from({length: count}, (_, i) => ({id: `${prefix}${i}`, digest: `sha:${i}`, vector: source.vector()}))
}

/** The ids read from `path` from the start. */
function ids(path: string): string[] {
  return readVectors(path, EMBEDDER, DIMS).records.map((r) => r.id)
}

/** Node runs the helper with the repo's TypeScript loader, as the tests themselves run. */
function appendFromChild(path: string, prefix: string, count: number, start: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', helper, path, EMBEDDER, String(DIMS), prefix, String(count), String(start)],
      {stdio: ['ignore', 'pipe', 'inherit']},
    )
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.on('error', reject)
    child.on('exit', (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(`exit ${code}`))))
  })
}

describe('vector file', () => {
  let dir: string
  let path: string

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'mem-vectors-'))
    path = join(dir, 'agent', 'cache', 'vectors.bin')
  })

  afterEach(() => {
    rmSync(dir, {recursive: true, force: true})
  })

  it('reads back what was appended: ids, digests and the quantized vectors', () => {
    const written = records(50)
    assert.ok(appendVectors(path, EMBEDDER, DIMS, written.slice(0, 20)))
    assert.ok(appendVectors(path, EMBEDDER, DIMS, written.slice(20)))
    const read = readVectors(path, EMBEDDER, DIMS)
    assert.equal(read.reset, false)
    assert.equal(read.damaged, 0)
    assert.equal(read.dimensions, DIMS)
    assert.equal(read.next, statSync(path).size)
    assert.deepEqual(
      read.records.map((r) => [r.id, r.digest]),
      written.map((r) => [r.id, r.digest]),
    )
    read.records.forEach((r, i) => {
      const want = quantize(written[i]!.vector)
      assert.deepEqual(Array.from(r.quantized.values), Array.from(want.values))
      assert.ok(Math.abs(r.quantized.scale - want.scale) < 1e-7)
    })
  })

  it('makes the file 0600 in a folder 0700', () => {
    assert.ok(appendVectors(path, EMBEDDER, DIMS, records(1)))
    assert.equal(statSync(path).mode & 0o777, 0o600)
    assert.equal(statSync(join(dir, 'agent', 'cache')).mode & 0o777, 0o700)
  })

  it('reads only the records appended since the offset it was given', () => {
    const written = records(30)
    appendVectors(path, EMBEDDER, DIMS, written.slice(0, 10))
    const first = readVectors(path, EMBEDDER, DIMS)
    assert.equal(first.records.length, 10)
    const none = readVectors(path, EMBEDDER, DIMS, first.next, first.file)
    assert.deepEqual([none.records.length, none.next, none.reset], [0, first.next, false])
    appendVectors(path, EMBEDDER, DIMS, written.slice(10))
    const later = readVectors(path, EMBEDDER, DIMS, first.next, first.file)
    assert.equal(later.reset, false)
    assert.deepEqual(
      later.records.map((r) => r.id),
      written.slice(10).map((r) => r.id),
    )
  })

  it('interleaves appends from two processes at once only between records', async function () {
    this.timeout(120_000)
    const count = 3000
    // Both start appending at once, a few seconds from now, whatever their start-up takes.
    const start = Date.now() + 4000
    const failed = await Promise.all([
      appendFromChild(path, 'a', count, start),
      appendFromChild(path, 'b', count, start),
    ])
    assert.deepEqual(failed, ['0', '0'])
    const read = readVectors(path, EMBEDDER, DIMS)
    assert.equal(read.damaged, 0)
    assert.equal(read.next, statSync(path).size)
    const got = read.records.map((r) => r.id)
    assert.equal(got.length, 2 * count)
    // They did run at once: the records of the two alternate many times.
    const switches = got.filter((x, i) => i > 0 && x[0] !== got[i - 1]![0]).length
    assert.ok(switches >= 10, `only ${switches} switches between the two writers`)
    for (const prefix of ['a', 'b']) {
      const mine = got.filter((x) => x.startsWith(`${prefix}-`))
      assert.deepEqual(
        mine,
        Array.from({length: count}, (_, n) => `${prefix}-${n}`),
      )
    }
    for (const record of read.records) {
      const n = Number(record.id.slice(2))
      const want = quantize(Float32Array.from({length: DIMS}, (_, i) => (i === 0 ? 1 : ((n + i) % 7) / 7)))
      assert.deepEqual(Array.from(record.quantized.values), Array.from(want.values), record.id)
      assert.equal(record.digest, `d${n}`)
    }
  })

  it('skips a torn last record, then reads it once it is whole', () => {
    const written = records(5)
    appendVectors(path, EMBEDDER, DIMS, written)
    const whole = readFileSync(path)
    const end = readVectors(path, EMBEDDER, DIMS).next
    const lastStart = end - recordLength(whole)
    truncateSync(path, end - 7)
    const torn = readVectors(path, EMBEDDER, DIMS)
    assert.deepEqual(
      torn.records.map((r) => r.id),
      ['F0', 'F1', 'F2', 'F3'],
    )
    assert.equal(torn.damaged, 0)
    assert.equal(torn.next, lastStart)
    // The writer's bytes arrive: the same offset now reads the last record.
    writeFileSync(path, whole)
    const again = readVectors(path, EMBEDDER, DIMS, torn.next, torn.file)
    assert.deepEqual(
      again.records.map((r) => r.id),
      ['F4'],
    )
    assert.equal(again.reset, false)
  })

  it('detects a flipped byte in a middle record and still reads the others', () => {
    appendVectors(path, EMBEDDER, DIMS, records(5))
    const bytes = readFileSync(path)
    const length = recordLength(bytes)
    const headerLength = bytes.indexOf(0x0a) + 1
    // A byte of the third record's vector.
    bytes[headerLength + 2 * length + 20]! ^= 0x10
    writeFileSync(path, bytes)
    const read = readVectors(path, EMBEDDER, DIMS)
    assert.deepEqual(
      read.records.map((r) => r.id),
      ['F0', 'F1', 'F3', 'F4'],
    )
    assert.equal(read.damaged, 1)
    assert.equal(read.next, bytes.length)
  })

  it('stops before a damaged last record, and reports it', () => {
    appendVectors(path, EMBEDDER, DIMS, records(3))
    const bytes = readFileSync(path)
    bytes[bytes.length - 10]! ^= 0xff
    writeFileSync(path, bytes)
    const read = readVectors(path, EMBEDDER, DIMS)
    assert.deepEqual(
      read.records.map((r) => r.id),
      ['F0', 'F1'],
    )
    assert.equal(read.damaged, 1)
    assert.equal(read.next, bytes.length - recordLength(bytes))
  })

  it('resets for another embedder or length, and the next append replaces the file', () => {
    appendVectors(path, EMBEDDER, DIMS, records(3))
    for (const [embedder, dims] of [
      ['endpoint:nomic-embed-text', DIMS],
      [EMBEDDER, DIMS * 2],
    ] as const) {
      const read = readVectors(path, embedder, dims)
      assert.deepEqual([read.reset, read.reason, read.records.length], [true, 'other model', 0])
    }
    const other = new SyntheticVectors(DIMS * 2, 3, 5)
    assert.ok(appendVectors(path, 'endpoint:x', DIMS * 2, [{id: 'G1', digest: 'g', vector: other.vector()}]))
    assert.equal(readVectors(path, EMBEDDER, DIMS).reason, 'other model')
    const now = readVectors(path, 'endpoint:x', undefined)
    assert.deepEqual(
      now.records.map((r) => r.id),
      ['G1'],
    )
    assert.equal(now.dimensions, DIMS * 2)
    assert.equal(statSync(path).mode & 0o777, 0o600)
  })

  it('resets when the file is missing, unreadable, shorter than the offset, or another file', () => {
    assert.deepEqual(readVectors(path, EMBEDDER, DIMS), {
      records: [],
      next: 0,
      reset: true,
      reason: 'missing',
      damaged: 0,
    })
    appendVectors(path, EMBEDDER, DIMS, records(10))
    const full = readVectors(path, EMBEDDER, DIMS)
    // Replaced by a compacted file with fewer records: shorter than the offset held.
    assert.ok(rewriteVectors(path, EMBEDDER, DIMS, full.records.slice(0, 2)))
    const shorter = readVectors(path, EMBEDDER, DIMS, full.next, full.file)
    assert.deepEqual([shorter.reset, shorter.reason], [true, 'replaced'])
    assert.deepEqual(
      shorter.records.map((r) => r.id),
      ['F0', 'F1'],
    )
    // Replaced by a longer one: the identity in the header tells.
    const small = readVectors(path, EMBEDDER, DIMS)
    assert.ok(rewriteVectors(path, EMBEDDER, DIMS, full.records))
    const longer = readVectors(path, EMBEDDER, DIMS, small.next, small.file)
    assert.deepEqual([longer.reset, longer.records.length], [true, 10])
    writeFileSync(path, 'not a vector file')
    assert.deepEqual(readVectors(path, EMBEDDER, DIMS).reason, 'unreadable')
    assert.ok(appendVectors(path, EMBEDDER, DIMS, records(1)))
    assert.deepEqual(ids(path), ['F0'])
  })

  it('refuses a symbolic link at the path for reading, appending and rewriting, and leaves its target alone', () => {
    const target = join(dir, 'elsewhere.bin')
    writeFileSync(target, 'keep me')
    mkdirSync(join(dir, 'agent', 'cache'), {recursive: true})
    symlinkSync(target, path)
    assert.equal(appendVectors(path, EMBEDDER, DIMS, records(2)), false)
    assert.equal(rewriteVectors(path, EMBEDDER, DIMS, []), false)
    const read = readVectors(path, EMBEDDER, DIMS)
    assert.deepEqual([read.reset, read.reason, read.records.length], [true, 'linked', 0])
    assert.equal(readFileSync(target, 'utf8'), 'keep me')
  })

  it('refuses a linked folder', () => {
    const real = join(dir, 'real')
    mkdirSync(real)
    mkdirSync(join(dir, 'agent'))
    symlinkSync(real, join(dir, 'agent', 'cache'))
    assert.equal(appendVectors(path, EMBEDDER, DIMS, records(1)), false)
    assert.equal(readVectors(path, EMBEDDER, DIMS).reason, 'linked')
  })

  it('returns false rather than throwing for bad records or a read-only folder', () => {
    const [good] = records(1)
    assert.equal(appendVectors(path, EMBEDDER, DIMS, [{...good!, vector: new Float32Array(DIMS + 1)}]), false)
    assert.equal(appendVectors(path, EMBEDDER, DIMS, [{...good!, id: 'x'.repeat(201)}]), false)
    assert.equal(appendVectors(path, EMBEDDER, DIMS, [{...good!, digest: 'é'}]), false)
    assert.equal(appendVectors(path, 'x'.repeat(5000), DIMS, [good!]), false)
    assert.ok(appendVectors(path, EMBEDDER, DIMS, [good!]))
    if (process.getuid?.() === 0) return // root writes anywhere
    chmodSync(join(dir, 'agent', 'cache'), 0o500)
    chmodSync(path, 0o400)
    try {
      assert.equal(appendVectors(path, EMBEDDER, DIMS, [good!]), false)
      assert.equal(appendVectors(path, 'endpoint:other', DIMS, [good!]), false)
    } finally {
      chmodSync(join(dir, 'agent', 'cache'), 0o700)
    }
    assert.deepEqual(ids(path), ['F0'])
  })

  it('rewrites a compacted file holding only the records given', () => {
    appendVectors(path, EMBEDDER, DIMS, records(20))
    const read = readVectors(path, EMBEDDER, DIMS)
    const keep = read.records.filter((_, i) => i % 4 === 0)
    assert.ok(rewriteVectors(path, EMBEDDER, DIMS, keep))
    const after = readVectors(path, EMBEDDER, DIMS)
    assert.deepEqual(
      after.records.map((r) => r.id),
      ['F0', 'F4', 'F8', 'F12', 'F16'],
    )
    assert.deepEqual(Array.from(after.records[1]!.quantized.values), Array.from(read.records[4]!.quantized.values))
    assert.notEqual(after.file, read.file)
  })
})

/** The length of the first record of a vector file's bytes (all records here have ids and digests of one length). */
function recordLength(bytes: Buffer): number {
  return bytes.readUInt32LE(bytes.indexOf(0x0a) + 1 + 4)
}
