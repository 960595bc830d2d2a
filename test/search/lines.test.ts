import assert from 'node:assert/strict'

import fc from 'fast-check'

import {FactIndex, type IndexedFact, type PlainCompactFactIndex} from '../../src/search/fact-index.js'
import {indexOfSorted, LineBlock, LINES_PER_BLOCK, prefixRange} from '../../src/search/lines.js'

/** Lines as the saved index keeps them: one text block and the offset of every 32nd line. */
function block(lines: string[]): LineBlock {
  return new LineBlock(Buffer.from(lines.join('\n'), 'utf8'), lines.length, LineBlock.index(lines))
}

describe('LineBlock: lines of a saved index read where asked', () => {
  it('reads every line back, across block boundaries and in any script', () => {
    for (const count of [0, 1, LINES_PER_BLOCK - 1, LINES_PER_BLOCK, LINES_PER_BLOCK + 1, 3 * LINES_PER_BLOCK + 5]) {
      const lines = Array.from({length: count}, (_, i) => (i % 3 === 0 ? `café-${i}` : i % 3 === 1 ? `日本${i}` : ''))
      const read = block(lines)
      assert.equal(read.length, count)
      assert.deepEqual(
        Array.from({length: count}, (_, i) => read.at(i)),
        lines,
      )
      assert.deepEqual(read.all(), lines)
      assert.equal(read.at(count), undefined)
      assert.equal(read.at(-1), undefined)
    }
  })

  it('refuses a block index that does not describe the text', () => {
    const lines = Array.from({length: 40}, (_, i) => `line ${i}`)
    const bytes = Buffer.from(lines.join('\n'))
    assert.throws(() => new LineBlock(bytes, 40, new Uint32Array(1)), /bad line block index/)
    assert.throws(() => new LineBlock(bytes, 40, Uint32Array.from([0, bytes.length + 1])), /bad line block index/)
    // Offsets that split the text into blocks of the wrong number of lines are caught on reading.
    const wrong = new LineBlock(bytes, 40, Uint32Array.from([0, 3]))
    assert.throws(() => wrong.at(0), /bad line block/)
  })

  it('finds words and prefixes in sorted lines like a search over the array', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.string({unit: fc.constantFrom('a', 'b', 'é', 'z'), maxLength: 5})),
        fc.string({unit: fc.constantFrom('a', 'b', 'é', 'z'), maxLength: 3}),
        (words, probe) => {
          const sorted = [...words].sort()
          const read = block(sorted)
          assert.equal(indexOfSorted(read, probe), sorted.indexOf(probe))
          const [from, to] = prefixRange(read, probe)
          assert.deepEqual(
            sorted.slice(from, to),
            sorted.filter((w) => w.startsWith(probe)),
          )
        },
      ),
    )
  })
})

const FACTS: IndexedFact[] = [
  'alice prefers pnpm over npm for the monorepo',
  'the staging database is read-only on fridays',
  'deploys go out on tuesdays and thursdays',
  'bob moved the kubernetes cluster to terraform',
  'grafana dashboards live in the ops folder',
  'the terraform state sits in the ops bucket',
].flatMap((content, i) =>
  Array.from({length: 12}, (_, k) => ({
    id: `f${String(i * 12 + k).padStart(3, '0')}`,
    content: `${content} ${k % 2 === 0 ? 'deploys' : 'stories'} ${k}`,
    tags: k % 3 === 0 ? ['ops'] : [],
    created_at: new Date(Date.UTC(2024, 0, 1, 0, i * 12 + (k % 4))).toISOString(),
  })),
)

/** The index as a cold search loads it from the file: every list read from a text block. */
function asSaved(data: PlainCompactFactIndex): FactIndex {
  return FactIndex.fromCompact({
    ...data,
    ids: block(data.ids),
    createdAt: block(data.createdAt),
    terms: block(data.terms),
    surfaces: block(data.surfaces),
  })
}

describe('FactIndex loaded from text blocks', () => {
  const queries = [
    'pnpm',
    'terraform ops',
    'kube',
    'graf',
    'terrafrom',
    'deplyos',
    'storie',
    'fridays database',
    'ops 3',
  ]

  it('ranks exactly like the index it was saved from, ties included, before and after changes', () => {
    const built = new FactIndex()
    for (const fact of FACTS) built.add(fact)
    const loaded = asSaved(built.toCompact())
    const both = [built, loaded]
    const same = () => {
      for (const q of queries)
        for (const options of [{limit: 7}, {limit: 30, tags: ['ops']}, {limit: 5, partial: true}])
          assert.deepEqual(loaded.search(q, options), built.search(q, options), `${q} ${JSON.stringify(options)}`)
    }
    same()
    for (const index of both) {
      index.remove('f000')
      index.remove('f040')
      index.add({...FACTS[5]!, content: 'the pnpm lockfile was edited by hand'})
      index.add({id: 'f900', content: 'kubectl and grafana agree', tags: [], created_at: '2024-01-01T00:00:00.000Z'})
    }
    same()
    assert.deepEqual(loaded.toCompact(), built.toCompact())
  })

  it('keeps a term whose facts are all gone out of reach, and brings it back when a fact holds it again', () => {
    const built = new FactIndex()
    for (const fact of FACTS.slice(0, 24)) built.add(fact)
    const loaded = asSaved(built.toCompact())
    for (const index of [built, loaded]) for (const fact of FACTS.slice(0, 12)) index.remove(fact.id)
    assert.deepEqual(loaded.search('pnpm', {limit: 5}), [])
    assert.deepEqual(loaded.search('pnmp', {limit: 5}), [])
    for (const index of [built, loaded]) index.add({...FACTS[0]!, id: 'f901'})
    assert.deepEqual(loaded.search('pnmp', {limit: 5}), built.search('pnmp', {limit: 5}))
    assert.equal(loaded.search('pnpm', {limit: 5})[0]?.id, 'f901')
    for (const index of [built, loaded])
      assert.equal(index.search('pnmp', {limit: 5})[0]?.id, 'f901', 'the typo finds it again')
  })
})
