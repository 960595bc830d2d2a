import assert from 'node:assert/strict'

import {seededRandom, testSeed} from '../helpers/seed.js'

describe('the seed behind randomized tests (MEM_TEST_SEED)', () => {
  const saved = process.env.MEM_TEST_SEED
  afterEach(() => {
    if (saved === undefined) delete process.env.MEM_TEST_SEED
    else process.env.MEM_TEST_SEED = saved
  })

  it('one seed gives the same choices on every run, another seed others', () => {
    const draw = (seed: number) => Array.from({length: 20}, seededRandom(seed))
    assert.deepEqual(draw(7), draw(7))
    assert.notDeepEqual(draw(7), draw(8))
    for (const x of draw(123)) assert.ok(x >= 0 && x < 1)
  })

  it('MEM_TEST_SEED replays a seed; without it each run draws a new one', () => {
    process.env.MEM_TEST_SEED = '987654'
    assert.equal(testSeed(), 987654)
    delete process.env.MEM_TEST_SEED
    const seeds = new Set(Array.from({length: 5}, testSeed))
    assert.ok(seeds.size > 1, 'a new seed each run')
  })

  it('a MEM_TEST_SEED that is not a whole number is refused, saying what it must be', () => {
    process.env.MEM_TEST_SEED = 'abc'
    assert.throws(testSeed, /MEM_TEST_SEED must be a whole number, not "abc"/)
  })
})
