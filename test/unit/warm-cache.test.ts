import assert from 'node:assert/strict'

import {WARM_BUDGET_BYTES, WarmBudget, WarmCache} from '../../src/store/warm-cache.js'

/** Entries whose cost is given in quarters of the budget. */
function cache(
  budget?: WarmBudget,
  dropped: string[] = [],
): {warm: WarmCache<{name: string; quarters: number}>; dropped: string[]} {
  const warm = new WarmCache<{name: string; quarters: number}>(
    (e) => (e.quarters * WARM_BUDGET_BYTES) / 4,
    (e) => dropped.push(e.name),
    budget,
  )
  return {warm, dropped}
}

const entry = (name: string, quarters: number) => ({name, quarters})

describe('WarmCache', () => {
  it('drops the least recently used first, once the whole is over budget, and tells of each drop', () => {
    const {warm, dropped} = cache()
    for (const name of ['a', 'b', 'c', 'd']) warm.use(name, entry(name, 1))
    assert.deepEqual(dropped, [])
    warm.use('a', warm.peek('a')!) // a is now the most recently used
    warm.use('e', entry('e', 1))
    assert.deepEqual(dropped, ['b'])
    assert.equal(warm.peek('b'), undefined)
    assert.deepEqual(warm.usage(), {agents: 4, bytes: WARM_BUDGET_BYTES})
  })

  it('never drops the entry in use, even when it alone is over budget', () => {
    const {warm, dropped} = cache()
    warm.use('a', entry('a', 1))
    warm.use('big', entry('big', 6))
    assert.deepEqual(dropped, ['a'])
    assert.equal(warm.peek('big')?.quarters, 6)
  })

  it('peeking is not a use, and forgetting an entry is not a drop', () => {
    const {warm, dropped} = cache()
    for (const name of ['a', 'b', 'c', 'd']) warm.use(name, entry(name, 1))
    assert.equal(warm.peek('a')?.name, 'a')
    warm.use('e', entry('e', 1))
    assert.deepEqual(dropped, ['a'])
    warm.delete('b')
    warm.clear()
    assert.deepEqual(dropped, ['a'])
    assert.deepEqual(warm.usage(), {agents: 0, bytes: 0})
  })

  it("caches sharing a budget keep the whole within it: each drops its own least recently used first, then the others', never the agent in use", () => {
    const budget = new WarmBudget()
    const dropped: string[] = []
    const files = cache(budget, dropped).warm
    const indexes = cache(budget, dropped).warm
    files.use('a', entry('files a', 1))
    indexes.use('a', entry('index a', 1))
    files.use('b', entry('files b', 1))
    indexes.use('b', entry('index b', 1))
    assert.deepEqual(dropped, [], 'four quarters: within the budget')
    indexes.use('c', entry('index c', 1))
    assert.deepEqual(dropped, ['index a'], 'the cache over the budget trims itself first')
    indexes.use('d', entry('index d', 3))
    assert.deepEqual(dropped, ['index a', 'index b', 'index c', 'files a'], 'then the other cache')
    assert.equal(files.peek('b')?.name, 'files b')
    files.use('d', entry('files d', 1))
    assert.deepEqual(
      dropped,
      ['index a', 'index b', 'index c', 'files a', 'files b'],
      "agent d's index, in use, stays though it alone fills three quarters",
    )
    assert.equal(budget.used(), WARM_BUDGET_BYTES)
  })
})
