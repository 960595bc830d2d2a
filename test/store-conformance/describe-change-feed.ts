import assert from 'node:assert/strict'

import fc from 'fast-check'

import '../helpers/fast-check-seed.js'
import {isLive, type FactRecord} from '../../src/store/records.js'
import type {FactChanges, Store} from '../../src/store/store.js'

/** What the change-feed section needs of the suite: the store under test, a second one on the same data, and a backup. */
export interface FeedContext {
  store(): Store
  /** Another store on the same data, as another process or server would open it. */
  open(): Store
  /** Copies the data aside; the function returned puts the copy back, as restoring a backup does. */
  backup(): Promise<() => Promise<void>>
}

/**
 * What a caller derives from the feed: every fact by id, as the feed last said it is. A reset
 * starts over from its facts; any other answer replaces the facts it gives.
 */
function apply(held: Map<string, FactRecord>, changes: FactChanges): Map<string, FactRecord> {
  const next = changes.reset ? new Map<string, FactRecord>() : new Map(held)
  for (const fact of changes.facts) next.set(fact.id, fact)
  return next
}

const byId = (a: FactRecord, b: FactRecord) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

function live(held: Map<string, FactRecord>): string[] {
  return [...held.values()]
    .filter(isLive)
    .map((f) => f.id)
    .sort()
}

async function liveNow(store: Store, agent: string): Promise<string[]> {
  return (await store.listFacts(agent))
    .filter(isLive)
    .map((f) => f.id)
    .sort()
}

/** The feed's facts come in the order listFacts gives them. */
async function inListOrder(store: Store, agent: string, facts: readonly FactRecord[]): Promise<void> {
  const order = new Map((await store.listFacts(agent)).map((f, i) => [f.id, i]))
  const at = facts.map((f) => order.get(f.id))
  assert.ok(
    at.every((i) => i !== undefined),
    'the feed gives only facts the agent holds',
  )
  assert.deepEqual(
    at,
    [...at].sort((a, b) => a! - b!),
    'in the order listFacts gives them',
  )
}

/** The change feed and the bulk read (Store.changesSince, Store.getFacts), the same on every store. */
export function describeChangeFeed(ctx: FeedContext): void {
  describe('the change feed', () => {
    it('an agent nobody wrote to: a reset with no facts, then no change, and no agent made', async () => {
      const store = ctx.store()
      const first = await store.changesSince('nobody')
      assert.deepEqual({reset: first.reset, facts: first.facts}, {reset: true, facts: []})
      const again = await store.changesSince('nobody', first.cursor)
      assert.deepEqual({reset: again.reset, facts: again.facts}, {reset: false, facts: []})
      assert.deepEqual(await store.listAgents(), [])
    })

    it('gives each add, supersede and delete since the cursor, with a cursor after each', async () => {
      const store = ctx.store()
      let held = new Map<string, FactRecord>()
      const step = async (): Promise<FactChanges> => {
        const changes = await store.changesSince('alice', cursor)
        assert.equal(changes.reset, false)
        await inListOrder(store, 'alice', changes.facts)
        held = apply(held, changes)
        cursor = changes.cursor
        assert.deepEqual(live(held), await liveNow(store, 'alice'))
        return changes
      }
      let cursor = (await store.changesSince('alice')).cursor

      const a = await store.addFact('alice', {content: 'the heron fishes at dawn', tags: ['birds']})
      assert.deepEqual((await step()).facts, [a])
      const b = await store.addFact('alice', {content: 'the kettle is in the attic', tags: []})
      assert.deepEqual((await step()).facts, [b], 'an add gives the new fact alone')
      assert.deepEqual((await store.changesSince('alice', cursor)).facts, [], 'nothing changed: nothing given')

      const c = await store.supersede('alice', [a.id], {content: 'the heron fishes at dusk', tags: ['birds']})
      const superseded = (await step()).facts
      assert.deepEqual(
        superseded.find((f) => f.id === a.id),
        {...a, superseded_by: c.id, superseded_at: c.created_at},
      )
      assert.deepEqual(
        superseded.find((f) => f.id === c.id),
        c,
      )

      const deleted = await store.deleteFact('alice', b.id, 'moved house')
      assert.deepEqual(
        (await step()).facts.find((f) => f.id === b.id),
        deleted,
      )
      assert.deepEqual(live(held), [c.id])
    })

    it('sees what another process or server wrote', async () => {
      const store = ctx.store()
      await store.addFact('alice', {content: 'first, here', tags: []})
      const start = await store.changesSince('alice')
      const other = ctx.open()
      const there = await other.addFact('alice', {content: 'then, from elsewhere', tags: []})
      const changes = await store.changesSince('alice', start.cursor)
      assert.equal(changes.reset, false)
      assert.deepEqual(
        changes.facts.map((f) => f.id),
        [there.id],
      )
      await other.deleteFact('alice', there.id)
      const after = await store.changesSince('alice', changes.cursor)
      assert.equal(after.reset, false)
      assert.equal(after.facts.find((f) => f.id === there.id)?.deleted_at !== undefined, true)
    })

    it('resets, with every fact, when the data went back to a backup', async () => {
      const store = ctx.store()
      await store.addFact('alice', {content: 'before the backup', tags: []})
      const restore = await ctx.backup()
      await store.addFact('alice', {content: 'after the backup', tags: []})
      const seen = await store.changesSince('alice')
      await restore()
      const back = await store.changesSince('alice', seen.cursor)
      assert.equal(back.reset, true, 'a fact the cursor saw is gone: only a reset is right')
      assert.deepEqual(back.facts, await store.listFacts('alice'))
      // Written to again until it holds as many facts as the cursor saw, the new one perhaps under
      // the very id of the one lost (a new id follows the last stored): a reset, or a delta that
      // says so, never the history the cursor saw.
      await store.addFact('alice', {content: 'a new line of history', tags: []})
      const later = await store.changesSince('alice', seen.cursor)
      const held = apply(new Map(seen.facts.map((f) => [f.id, f])), later)
      assert.deepEqual([...held.values()].sort(byId), [...(await store.listFacts('alice'))].sort(byId))
    })

    it('a cursor it did not make (garbled, of another store, empty) is a reset with every fact', async () => {
      const store = ctx.store()
      const fact = await store.addFact('alice', {content: 'kept', tags: []})
      const good = (await store.changesSince('alice')).cursor
      const garbled = [
        '',
        'nonsense',
        good + good,
        good.slice(0, -3),
        'files.1.' + Buffer.from('[["000001.json","x",1,"y","z"]]').toString('base64url'),
        'pg.1.' + Buffer.from('[99,1,null]').toString('base64url'),
        'pg.1.' + Buffer.from('[-1,0,null]').toString('base64url'),
      ]
      for (const cursor of garbled) {
        const changes = await store.changesSince('alice', cursor)
        assert.equal(changes.reset, true, `cursor ${JSON.stringify(cursor)}`)
        assert.deepEqual(changes.facts, [fact])
      }
      // One agent's cursor for another: never the other's delta.
      await store.addFact('bob', {content: 'bob has one', tags: []})
      const bobs = await store.changesSince('bob', good)
      assert.equal(bobs.reset, true)
      assert.deepEqual(
        bobs.facts.map((f) => f.content),
        ['bob has one'],
      )
    })

    it('replaying the feed from any cursor gives the facts as they are now', async () => {
      const store = ctx.store()
      let n = 0
      type Op = {kind: 'add' | 'copy' | 'thread' | 'supersede' | 'delete' | 'other'; pick: number}
      const op = fc.record({
        kind: fc.constantFrom('add', 'copy', 'thread', 'supersede', 'delete', 'other'),
        pick: fc.nat(),
      }) as fc.Arbitrary<Op>
      await fc.assert(
        fc.asyncProperty(fc.array(fc.tuple(op, fc.boolean()), {minLength: 1, maxLength: 10}), async (ops) => {
          const agent = `prop-${++n}`
          const other = ctx.open()
          // Each cursor taken along the way, with what a caller replaying from the start held then.
          const taken: {cursor: string; held: Map<string, FactRecord>}[] = []
          let held = new Map<string, FactRecord>()
          const take = async () => {
            const changes = await store.changesSince(agent, taken.at(-1)?.cursor)
            held = apply(held, changes)
            taken.push({cursor: changes.cursor, held})
          }
          await take()
          for (const [{kind, pick}, look] of ops) {
            const liveIds = await liveNow(store, agent)
            const target = liveIds[pick % Math.max(1, liveIds.length)]
            const content = `fact ${pick % 5}`
            if (kind === 'add') await store.addFact(agent, {content, tags: []})
            else if (kind === 'copy') await store.addFact(agent, {content, tags: []}, {allowDuplicate: true})
            else if (kind === 'thread') await store.addFact(agent, {content, tags: [], thread: 't'})
            else if (kind === 'other') await other.addFact(agent, {content: `${content} elsewhere`, tags: ['x']})
            else if (target === undefined) await store.addFact(agent, {content, tags: []})
            else if (kind === 'supersede') await store.supersede(agent, [target], {content: `${content}'`, tags: []})
            else await other.deleteFact(agent, target)
            if (look) await take()
          }
          await take()
          const now = await store.listFacts(agent)
          for (const {cursor, held: then} of taken) {
            const changes = await store.changesSince(agent, cursor)
            assert.equal(changes.reset, false)
            await inListOrder(store, agent, changes.facts)
            const replayed = apply(then, changes)
            assert.deepEqual([...replayed.values()].sort(byId), [...now].sort(byId))
          }
          await other.close()
        }),
        {numRuns: 12},
      )
    })
  })

  describe('getFacts', () => {
    it('reads facts by id, live or not, in the order asked, leaving out ids the agent does not hold', async () => {
      const store = ctx.store()
      const a = await store.addFact('alice', {content: 'one', tags: []})
      const b = await store.addFact('alice', {content: 'two', tags: []})
      const c = await store.supersede('alice', [a.id], {content: 'one, again', tags: []})
      const bobs = await store.addFact('bob', {content: 'not alice', tags: []})
      const got = await ctx.open().getFacts('alice', [c.id, 'NOPE', b.id, a.id, bobs.id, c.id])
      assert.deepEqual(got, [c, b, {...a, superseded_by: c.id, superseded_at: c.created_at}])
      assert.deepEqual(await store.getFacts('alice', []), [])
      assert.deepEqual(await store.getFacts('nobody', [a.id]), [])
      assert.deepEqual(await store.listAgents(), ['alice', 'bob'])
    })
  })
}
