import assert from 'node:assert/strict'

import {mem, tempHome} from '../helpers/mem.js'
import {STORES, useStore} from '../helpers/stores.js'
import {startMem} from './helpers.js'

/** Runs `mem` with its clock a day behind (libfaketime), as after an NTP correction or a restored VM. */
async function memADayAgo(home: string, args: string[]): Promise<{code: number; stdout: string; stderr: string}> {
  return startMem(home, args, {prefix: ['faketime', '-f', '-1d']}).done
}

describe('torture: a clock stepped back does not reorder what was saved', function () {
  this.timeout(30_000)
  let home: ReturnType<typeof tempHome>
  beforeEach(() => (home = tempHome()))
  afterEach(() => home.cleanup())

  it('mem resume returns the checkpoint saved last, and mem checkpoints lists it first, though its clock said a day earlier', async () => {
    const first = JSON.parse(mem(home.home, ['save', '--state', '{"step":1}', '-a', 'a', '--json']).stdout) as {
      checkpoint_id: string
      created_at: string
    }
    const r = await memADayAgo(home.home, ['save', '--state', '{"step":2}', '-a', 'a', '--json'])
    assert.equal(r.code, 0, r.stderr)
    const second = JSON.parse(r.stdout) as {checkpoint_id: string; created_at: string}
    assert.ok(second.created_at < first.created_at, 'the clock was stepped back')
    assert.ok(second.checkpoint_id > first.checkpoint_id, 'ids still follow the order of saves')
    const resumed = JSON.parse(mem(home.home, ['resume', '-a', 'a', '--json']).stdout) as {
      id: string
      state: {step: number}
    }
    assert.deepEqual([resumed.id, resumed.state.step], [second.checkpoint_id, 2])
    const listed = JSON.parse(mem(home.home, ['checkpoints', '-a', 'a', '--json']).stdout) as {
      checkpoints: {id: string}[]
    }
    assert.deepEqual(
      listed.checkpoints.map((c) => c.id),
      [second.checkpoint_id, first.checkpoint_id],
    )
  })

  it('mem list shows the fact added last first, though its clock said a day earlier', async () => {
    const first = JSON.parse(mem(home.home, ['add', 'before the step', '-a', 'a', '--json']).stdout) as {
      fact_id: string
    }
    const r = await memADayAgo(home.home, ['add', 'after the step', '-a', 'a', '--json'])
    assert.equal(r.code, 0, r.stderr)
    const second = JSON.parse(r.stdout) as {fact_id: string}
    const listed = JSON.parse(mem(home.home, ['list', '-a', 'a', '--json']).stdout) as {
      facts: {id: string; content: string}[]
    }
    assert.deepEqual(
      listed.facts.map((f) => f.content),
      ['after the step', 'before the step'],
    )
    assert.deepEqual(
      listed.facts.map((f) => f.id),
      [second.fact_id, first.fact_id],
    )
  })
})

for (const store of STORES)
  describe(`torture: a clock stepped back does not reorder a fact's history (${store.name})`, function () {
    this.timeout(30_000)
    useStore(store)
    let home: ReturnType<typeof tempHome>
    beforeEach(() => (home = tempHome()))
    afterEach(() => home.cleanup())

    it("mem history lists the original before its replacement, though the replacement's clock said a day earlier", async () => {
      const original = (
        JSON.parse(mem(home.home, ['add', 'the office is in Lyon', '-a', 'a', '--json']).stdout) as {
          fact_id: string
        }
      ).fact_id
      const r = await memADayAgo(home.home, [
        'reflect',
        'update',
        '--fact',
        original,
        '--content',
        'the office is in Paris',
        '-a',
        'a',
        '--json',
      ])
      assert.equal(r.code, 0, r.stderr)
      const replacement = (JSON.parse(r.stdout) as {fact_id: string}).fact_id
      for (const id of [original, replacement]) {
        const history = JSON.parse(mem(home.home, ['history', id, '-a', 'a', '--json']).stdout) as {
          versions: {id: string; created_at: string}[]
        }
        assert.deepEqual(
          history.versions.map((v) => v.id),
          [original, replacement],
        )
        assert.ok(history.versions[1]!.created_at < history.versions[0]!.created_at, 'the clock was stepped back')
      }
    })
  })
