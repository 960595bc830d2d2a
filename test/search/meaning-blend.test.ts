import assert from 'node:assert/strict'

import {DEFAULT_TUNING, FactIndex, type DenseHit, type IndexedFact} from '../../src/search/fact-index.js'

/** Facts as an agent stores them: standalone, an hour apart. */
function facts(contents: string[]): IndexedFact[] {
  return contents.map((content, i) => ({
    id: `F${i}`,
    content,
    tags: i % 2 === 0 ? ['even'] : [],
    created_at: new Date(Date.UTC(2024, 0, 1) + i * 3600_000).toISOString(),
  }))
}

const FACTS = facts([
  'Bob drinks a double espresso every morning before standup.',
  'The billing service runs on PostgreSQL 16.',
  'Carol edits everything in Neovim with a custom config.',
  'Deploys go out on Tuesdays after the integration tests pass.',
  'The office coffee machine is a Rancilio Silvia.',
])

function indexOf(): FactIndex {
  const index = new FactIndex()
  for (const fact of FACTS) index.add(fact)
  return index
}

const ids = (hits: {id: string}[]) => hits.map((h) => h.id)

describe('hybrid ranking (MeaningBlend)', () => {
  it('without dense hits, ranks exactly as words alone', () => {
    const index = indexOf()
    for (const query of ['coffee machine', 'postgres billing', 'espresso', 'neovim config'])
      assert.deepEqual(index.search(query, {limit: 10, dense: undefined}), index.search(query, {limit: 10}), query)
  })

  it('returns a fact that shares no word with the query, marked byMeaning, when it is near enough', () => {
    const index = indexOf()
    // No fact holds "favourite" or "beverage": only meaning can find one.
    const dense: DenseHit[] = [
      {id: 'F0', similarity: 0.71},
      {id: 'F4', similarity: 0.62},
      {id: 'F1', similarity: 0.2},
    ]
    const hits = index.search('favourite beverage', {limit: 10, dense})
    assert.deepEqual(ids(hits), ['F0', 'F4'])
    assert.ok(hits.every((h) => h.byMeaning === true))
    assert.ok(hits[0]!.score > hits[1]!.score)
  })

  it('leaves out facts below the floor of similarity when no word matched them', () => {
    const index = indexOf()
    const floor = DEFAULT_TUNING.meaning.floor
    const dense: DenseHit[] = [
      {id: 'F2', similarity: floor + 0.1},
      {id: 'F3', similarity: floor - 0.01},
    ]
    assert.deepEqual(ids(index.search('text editor', {limit: 10, dense})), ['F2'])
  })

  it('keeps a fact named by a rare word first, ahead of facts nearer in meaning', () => {
    const index = indexOf()
    const dense: DenseHit[] = [
      {id: 'F4', similarity: 0.9},
      {id: 'F0', similarity: 0.85},
      {id: 'F1', similarity: 0.1},
    ]
    const hits = index.search('postgresql', {limit: 10, dense})
    assert.equal(hits[0]!.id, 'F1')
    assert.equal(hits[0]!.byMeaning, undefined)
  })

  it('lifts, among word matches, the one nearer in meaning', () => {
    const index = new FactIndex()
    for (const fact of facts(['The coffee at the office is awful.', 'Coffee beans come from a roaster in Leeds.']))
      index.add(fact)
    const plain = index.search('coffee', {limit: 10})
    const last = plain.at(-1)!.id
    const first = plain[0]!.id
    const dense: DenseHit[] = [
      {id: last, similarity: 0.8},
      {id: first, similarity: 0.3},
    ]
    assert.deepEqual(ids(index.search('coffee', {limit: 10, dense})), [last, first])
  })

  it('keeps the filters: a fact found by meaning must carry the tags asked for', () => {
    const index = indexOf()
    const dense: DenseHit[] = [
      {id: 'F1', similarity: 0.8},
      {id: 'F2', similarity: 0.75},
    ]
    // F2 carries "even", F1 does not.
    assert.deepEqual(ids(index.search('text editor', {limit: 10, tags: ['even'], dense})), ['F2'])
  })

  it('passes over ids the index does not hold as live', () => {
    const index = indexOf()
    index.remove('F0')
    const dense: DenseHit[] = [
      {id: 'F0', similarity: 0.9},
      {id: 'nope', similarity: 0.9},
      {id: 'F4', similarity: 0.7},
    ]
    assert.deepEqual(ids(index.search('favourite beverage', {limit: 10, dense})), ['F4'])
  })

  it('with explain, a fact found by meaning matched no word', () => {
    const index = indexOf()
    const [hit] = index.search('favourite beverage', {limit: 1, explain: true, dense: [{id: 'F0', similarity: 0.8}]})
    assert.deepEqual(hit!.matched, [])
    assert.equal(hit!.byMeaning, true)
  })
})
