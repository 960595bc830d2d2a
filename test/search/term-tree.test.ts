import assert from 'node:assert/strict'

import fc from 'fast-check'

import {TermTree} from '../../src/search/term-tree.js'

/** Levenshtein distance over UTF-16 code units, the plain full matrix. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({length: b.length + 1}, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++)
      row.push(Math.min(previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1), previous[j]! + 1, row[j - 1]! + 1))
    previous = row
  }
  return previous[b.length]!
}

const sortedUnique = (words: readonly string[]) => [...new Set(words)].sort()

const reference = {
  withPrefix: (keys: readonly string[], prefix: string) => sortedUnique(keys).filter((key) => key.startsWith(prefix)),
  within: (keys: readonly string[], word: string, most: number) =>
    sortedUnique(keys)
      .map((key) => [key, editDistance(word, key)] as [string, number])
      .filter(([, d]) => d <= most),
}

/**
 * {@link reference}'s `within` for many long keys, sorted and unique: a key's length differs from
 * the word's by no more than its distance, and a prefix the two share takes no edits.
 */
function near(sorted: readonly string[], word: string, most: number): [string, number][] {
  return sorted.flatMap((key): [string, number][] => {
    if (Math.abs(key.length - word.length) > most) return []
    let shared = 0
    while (shared < key.length && key[shared] === word[shared]) shared++
    const distance = editDistance(word.slice(shared), key.slice(shared))
    return distance <= most ? [[key, distance]] : []
  })
}

/**
 * `actual` is `expected`, for lists too long to compare whole (20,000 keys of up to 20,000 code
 * units take seconds): every key's length, and in full every 100th key and the last 20.
 */
function sameLongKeys(actual: readonly string[], expected: readonly string[], message: string): void {
  assert.deepEqual(
    actual.map((key) => key.length),
    expected.map((key) => key.length),
    message,
  )
  for (let i = 0; i < expected.length; i++)
    if (i % 100 === 0 || i >= expected.length - 20) assert.equal(actual[i], expected[i], `${message}, key ${i}`)
}

/**
 * Words with much in common (a few letters, so prefixes are shared and edits land on other
 * words), accented and CJK letters, an emoji (two code units), lone surrogates, and the empty word.
 */
const letter = fc.constantFrom('a', 'b', 'c', 'é', 'e\u0301', '日', '本', '😀', '\ud800', 'Z')
const word = fc.oneof(
  {weight: 6, arbitrary: fc.string({unit: letter, maxLength: 7})},
  {weight: 2, arbitrary: fc.string({unit: 'grapheme', maxLength: 6})},
  {weight: 1, arbitrary: fc.string({unit: 'binary', maxLength: 4})},
  {weight: 1, arbitrary: fc.constant('')},
)
const words = fc.array(word, {maxLength: 60})

/** A query: a stored word changed a little (or not at all), or any word. */
function queryFor(keys: readonly string[]) {
  const near = fc
    .tuple(fc.constantFrom(...(keys.length > 0 ? keys : [''])), fc.nat(), fc.nat(), letter)
    .map(([key, at, how, extra]) => {
      const i = key.length === 0 ? 0 : at % key.length
      switch (how % 4) {
        case 0:
          return key
        case 1:
          return key.slice(0, i) + extra + key.slice(i)
        case 2:
          return key.slice(0, i) + key.slice(i + 1)
        default:
          return key.slice(0, i) + extra + key.slice(i + 1)
      }
    })
  return fc.oneof(near, word)
}

/** The tree for `keys` built the two ways the index builds it: in one pass, and by adding after some. */
const trees = fc.tuple(words, fc.nat()).map(([keys, split]) => {
  const cut = keys.length === 0 ? 0 : split % (keys.length + 1)
  const grown = TermTree.fromSorted(sortedUnique(keys.slice(0, cut)))
  for (const key of keys.slice(cut)) grown.add(key)
  return {keys, built: TermTree.fromSorted(sortedUnique(keys)), grown}
})

describe('TermTree: the radix tree of prefix and typo lookups', () => {
  it('finds exactly the keys a prefix starts, in sorted order', () => {
    fc.assert(
      fc.property(
        trees.chain((t) => fc.tuple(fc.constant(t), fc.array(queryFor(t.keys), {minLength: 1, maxLength: 8}))),
        ([{keys, built, grown}, queries]) => {
          for (const query of [
            '',
            ...queries,
            ...queries.map((q) => q.slice(0, 1)),
            ...queries.map((q) => q.slice(0, 2)),
          ]) {
            const expected = reference.withPrefix(keys, query)
            assert.deepEqual(built.withPrefix(query), expected, `prefix ${JSON.stringify(query)}`)
            assert.deepEqual(grown.withPrefix(query), expected, `prefix ${JSON.stringify(query)} (added)`)
          }
        },
      ),
      {numRuns: 300},
    )
  })

  it('finds exactly the keys within the edits allowed, each with its distance, in sorted order', () => {
    fc.assert(
      fc.property(
        trees.chain((t) =>
          fc.tuple(
            fc.constant(t),
            fc.array(queryFor(t.keys), {minLength: 1, maxLength: 8}),
            fc.integer({min: 0, max: 3}),
          ),
        ),
        ([{keys, built, grown}, queries, most]) => {
          for (const query of queries) {
            const expected = reference.within(keys, query, most)
            assert.deepEqual([...built.within(query, most)], expected, `${JSON.stringify(query)} within ${most}`)
            assert.deepEqual(
              [...grown.within(query, most)],
              expected,
              `${JSON.stringify(query)} within ${most} (added)`,
            )
          }
        },
      ),
      {numRuns: 300},
    )
  })

  it('holds exactly its keys', () => {
    fc.assert(
      fc.property(
        trees.chain((t) => fc.tuple(fc.constant(t), fc.array(queryFor(t.keys), {maxLength: 10}))),
        ([{keys, built, grown}, queries]) => {
          for (const query of [...keys, ...queries]) {
            assert.equal(built.has(query), keys.includes(query), JSON.stringify(query))
            assert.equal(grown.has(query), keys.includes(query), `${JSON.stringify(query)} (added)`)
          }
        },
      ),
      {numRuns: 300},
    )
  })

  it('counts edits the way typo matching relies on', () => {
    const tree = TermTree.fromSorted(
      sortedUnique(['form', 'from', 'fro', 'frog', 'terraform', 'café', 'caf😀', 'cafe']),
    )
    // A swap of neighbours is two edits (loose-match.ts tries swaps itself, as one).
    assert.deepEqual(
      [...tree.within('from', 1)],
      [
        ['fro', 1],
        ['frog', 1],
        ['from', 0],
      ],
    )
    assert.equal(tree.within('from', 2).get('form'), 2)
    assert.equal(tree.within('terrafrom', 1).get('terraform'), undefined)
    assert.equal(tree.within('terrafrom', 2).get('terraform'), 2)
    // Code units: an emoji is two, an accented letter written as one character is one.
    assert.deepEqual(
      [...tree.within('cafe', 1)],
      [
        ['cafe', 0],
        ['café', 1],
      ],
    )
    assert.equal(tree.within('cafe', 2).get('caf😀'), 2)
    // Nothing but the word itself at distance 0; the empty word reaches short keys.
    assert.deepEqual([...tree.within('frog', 0)], [['frog', 0]])
    assert.deepEqual(
      [...TermTree.fromSorted(['', 'a', 'ab', 'abc']).within('', 2)],
      [
        ['', 0],
        ['a', 1],
        ['ab', 2],
      ],
    )
  })

  it('answers for an empty tree, and skips repeated keys', () => {
    const empty = TermTree.fromSorted([])
    assert.deepEqual(empty.withPrefix(''), [])
    assert.deepEqual([...empty.within('a', 2)], [])
    assert.equal(empty.has(''), false)
    const tree = TermTree.fromSorted(['a', 'a', 'b', 'b'])
    assert.deepEqual(tree.withPrefix(''), ['a', 'b'])
    tree.add('a')
    assert.deepEqual(tree.withPrefix(''), ['a', 'b'])
  })

  it('builds from keys in order, repeats and all, and refuses any other order', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          words,
          words.map((keys) => [...keys].sort()),
        ),
        (keys) => {
          const inOrder = keys.every((key, i) => i === 0 || keys[i - 1]! <= key)
          if (!inOrder) return assert.throws(() => TermTree.fromSorted(keys), RangeError)
          assert.deepEqual(TermTree.fromSorted(keys).withPrefix(''), sortedUnique(keys))
        },
      ),
      {numRuns: 500},
    )
  })

  it('refuses keys out of order, and a negative or fractional edit count', () => {
    assert.throws(() => TermTree.fromSorted(['b', 'a']), RangeError)
    assert.throws(() => TermTree.fromSorted(['é', 'z']), RangeError)
    assert.throws(() => TermTree.fromSorted(['a', 'a', 'c', 'b']), RangeError)
    const tree = TermTree.fromSorted(['a'])
    assert.throws(() => tree.within('a', -1), RangeError)
    assert.throws(() => tree.within('a', 1.5), RangeError)
  })

  it('takes long keys and many of them', () => {
    const long = 'x'.repeat(20_000)
    const keys = sortedUnique([long, `${long}y`, ...Array.from({length: 5000}, (_, i) => `w${i.toString(36)}`)])
    const tree = TermTree.fromSorted(keys)
    assert.deepEqual(tree.withPrefix('xxx'), [long, `${long}y`])
    assert.deepEqual(
      [...tree.within(`${long}z`, 1)],
      [
        [long, 1],
        [`${long}y`, 1],
      ],
    )
    assert.equal(tree.withPrefix('w').length, 5000)
  })

  it('answers for keys nested 20,000 deep, where walking the tree by recursion ran out of stack', () => {
    // "a", "aa", … up to 20,000 a's, as a memory of hostile content can hold (200 million
    // characters spelt out, here slices of one string), and some followed by "b", so that nodes
    // far down have two edges. Building, prefix and typo lookups each overflowed the call stack.
    const depth = 20_000
    const as = 'a'.repeat(depth + 2)
    const a = (n: number) => as.slice(0, n)
    const forks = [1, 2, 999, 1000, 5000, 10_000, 15_000, depth - 2, depth - 1, depth]
    // Sorted: the runs of a's, shortest first, then the forks, longest first ("aab" before "ab").
    const keys = [...Array.from({length: depth}, (_, i) => a(i + 1)), ...[...forks].reverse().map((n) => `${a(n)}b`)]
    const answers = (tree: TermTree, held: readonly string[], how: string) => {
      for (const prefix of ['', 'a', a(999), `${a(999)}b`, a(depth - 1), a(depth), a(depth + 1), 'b']) {
        const expected = held.filter((key) => key.startsWith(prefix))
        sameLongKeys(tree.withPrefix(prefix), expected, `${how}: prefix of ${prefix.length}`)
      }
      for (const word of [a(depth), `${a(depth - 1)}c`, a(depth + 1), `${a(10_000)}ba`, `${a(12_345)}b`]) {
        // Each word is two edits or fewer from some key, so that not every answer is empty.
        assert.ok(near(held, word, 2).length > 0, `${how}: no key within 2 of the word ${word.length} long`)
        for (const most of [1, 2])
          assert.deepEqual(
            [...tree.within(word, most)],
            near(held, word, most),
            `${how}: ${word.length} long, within ${most}`,
          )
      }
    }

    // One tree (building one takes a second): built without every 1000th run, the longest and
    // every other fork, which are then added, last first (splitting edges far down).
    const later = (i: number) => i % 1000 === 500 || (i >= depth - 1 && i % 2 === 1)
    const first = keys.filter((_, i) => !later(i))
    const tree = TermTree.fromSorted(first)
    answers(tree, first, 'built')
    for (const key of keys.filter((_, i) => later(i)).reverse()) tree.add(key)
    answers(tree, keys, 'added')
  })
})
