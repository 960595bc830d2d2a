import assert from 'node:assert/strict'

import {MemError} from '../../src/errors.js'
import {ID_PATTERN, newId} from '../../src/store/ids.js'
import type {CheckpointRecord, FactRecord} from '../../src/store/records.js'
import type {Store} from '../../src/store/store.js'
import {describeChangeFeed} from './describe-change-feed.js'

/**
 * Where one store keeps its data (a MEM_HOME, a database): `open` gives a store on it, as a
 * new process or server would, so tests can run two at once on the same data.
 */
export interface Backing {
  open(): Store
  cleanup(): Promise<void>
  /** Copies the data aside; the function returned puts the copy back, as restoring a backup does. */
  backup(): Promise<() => Promise<void>>
}

async function rejectsWith(promise: Promise<unknown>, code: string, message: string | RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof MemError, `expected a MemError, got ${String(error)}`)
    assert.equal(error.code, code)
    if (typeof message === 'string') assert.equal(error.message, message)
    else assert.match(error.message, message)
    return true
  })
}

const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

/**
 * What every Store does, the same whatever keeps the data (src/store/store.ts): one suite run
 * against each store, so no behaviour is left to "varies by implementation".
 */
export function describeStore(name: string, makeBacking: () => Promise<Backing>): void {
  describe(`Store conformance: ${name}`, function () {
    this.timeout(60_000)
    let backing: Backing
    let store: Store
    const opened: Store[] = []
    const open = () => {
      const s = backing.open()
      opened.push(s)
      return s
    }

    beforeEach(async () => {
      backing = await makeBacking()
      store = open()
    })

    afterEach(async () => {
      await Promise.all(opened.splice(0).map((s) => s.close()))
      await backing.cleanup()
    })

    describe('addFact, getFact, listFacts', () => {
      it('stores a fact with a new id and time, and reads it back as stored', async () => {
        const fact = await store.addFact('alice', {content: 'Uses pnpm', tags: ['tooling', 'js']})
        assert.match(fact.id, ID_PATTERN)
        assert.match(fact.created_at, TIME)
        assert.deepEqual(fact, {
          id: fact.id,
          content: 'Uses pnpm',
          tags: ['tooling', 'js'],
          created_at: fact.created_at,
        })
        assert.equal('duplicate' in fact, false)
        assert.deepEqual(await store.getFact('alice', fact.id), fact)
        assert.deepEqual(await store.listFacts('alice'), [fact])
      })

      it('keeps a thread only when given, and every character of the content', async () => {
        const odd = 'nul \u0000, lone \ud800 surrogate, emoji 🦀, quote " and \\ backslash'
        const turn = await store.addFact('alice', {content: odd, tags: [], thread: 'chat-1'})
        assert.equal(turn.thread, 'chat-1')
        const back = await open().getFact('alice', turn.id)
        assert.equal(back.content, odd)
        assert.deepEqual(back, turn)
      })

      it('lists facts in the order they were stored, with ids that sort in that order', async () => {
        const ids: string[] = []
        for (let i = 0; i < 25; i++) ids.push((await store.addFact('alice', {content: `fact ${i}`, tags: []})).id)
        const listed = (await store.listFacts('alice')).map((f) => f.id)
        assert.deepEqual(listed, ids)
        assert.deepEqual([...ids].sort(), ids)
      })

      it('keeps agents apart', async () => {
        await store.addFact('alice', {content: 'alice only', tags: []})
        const bob = await store.addFact('bob', {content: 'bob only', tags: []})
        assert.deepEqual(
          (await store.listFacts('bob')).map((f) => f.content),
          ['bob only'],
        )
        await rejectsWith(store.getFact('alice', bob.id), 'not_found', `No fact "${bob.id}" found for agent "alice".`)
      })

      it('an unknown fact is not_found; an unknown agent has no facts', async () => {
        await rejectsWith(store.getFact('nobody', 'X'), 'not_found', 'No fact "X" found for agent "nobody".')
        assert.deepEqual(await store.listFacts('nobody'), [])
      })
    })

    describe('the duplicate guard', () => {
      it('returns the live standalone fact that already says the same, ignoring case and white space', async () => {
        const first = await store.addFact('alice', {content: 'The pump is a Grundfos', tags: ['home']})
        const again = await store.addFact('alice', {content: '  the PUMP  is a\tgrundfos ', tags: []})
        assert.deepEqual(again, {...first, duplicate: true})
        assert.equal((await store.listFacts('alice')).length, 1)
      })

      it('stores a copy when asked, and never guards a turn of a thread', async () => {
        await store.addFact('alice', {content: 'same words', tags: []})
        const copy = await store.addFact('alice', {content: 'same words', tags: []}, {allowDuplicate: true})
        assert.equal(copy.duplicate, undefined)
        const turn = await store.addFact('alice', {content: 'same words', tags: [], thread: 't'})
        assert.equal(turn.duplicate, undefined)
        assert.equal((await store.listFacts('alice')).length, 3)
      })

      it('the first stored wins; a deleted or replaced fact no longer counts', async () => {
        const a = await store.addFact('alice', {content: 'twice said', tags: []})
        const b = await store.addFact('alice', {content: 'twice said', tags: []}, {allowDuplicate: true})
        assert.equal((await store.addFact('alice', {content: 'Twice said', tags: []})).id, a.id)
        await store.deleteFact('alice', a.id)
        assert.equal((await store.addFact('alice', {content: 'twice said', tags: []})).id, b.id)
        await store.supersede('alice', [b.id], {content: 'said once', tags: []})
        const fresh = await store.addFact('alice', {content: 'twice said', tags: []})
        assert.equal(fresh.duplicate, undefined)
      })

      it('two stores adding the same content at once store it once', async () => {
        const other = open()
        const results = await Promise.all(
          Array.from({length: 6}, (_, i) =>
            (i % 2 ? other : store).addFact('alice', {content: 'raced content', tags: []}),
          ),
        )
        assert.equal(results.filter((r) => r.duplicate === undefined).length, 1)
        assert.equal(new Set(results.map((r) => r.id)).size, 1)
        assert.equal((await store.listFacts('alice')).length, 1)
      })
    })

    describe('supersede and deleteFact', () => {
      it('writes the new fact and marks the old ones replaced by it, at its time', async () => {
        const a = await store.addFact('alice', {content: 'uses npm', tags: []})
        const b = await store.addFact('alice', {content: 'uses yarn', tags: []})
        const next = await store.supersede('alice', [a.id, b.id], {content: 'uses pnpm', tags: ['t'], reason: 'moved'})
        assert.deepEqual(next, {
          id: next.id,
          content: 'uses pnpm',
          tags: ['t'],
          created_at: next.created_at,
          supersedes: [a.id, b.id],
          reason: 'moved',
        })
        assert.ok(next.id > b.id)
        const listed = await store.listFacts('alice')
        assert.deepEqual(
          listed.map((f) => f.id),
          [a.id, b.id, next.id],
        )
        assert.deepEqual(listed[0], {...a, superseded_by: next.id, superseded_at: next.created_at})
        assert.deepEqual(listed[1], {...b, superseded_by: next.id, superseded_at: next.created_at})
      })

      it('keeps the thread given', async () => {
        const a = await store.addFact('alice', {content: 'turn one', tags: [], thread: 'th'})
        const next = await store.supersede('alice', [a.id], {content: 'turn one, fixed', tags: [], thread: 'th'})
        assert.equal(next.thread, 'th')
      })

      it('refuses a fact already replaced or deleted, naming what happened, and changes nothing', async () => {
        const a = await store.addFact('alice', {content: 'v1', tags: []})
        const v2 = await store.supersede('alice', [a.id], {content: 'v2', tags: []})
        await rejectsWith(
          store.supersede('alice', [a.id], {content: 'v3', tags: []}),
          'not_found',
          `Fact "${a.id}" of agent "alice" was replaced by "${v2.id}" at ${v2.created_at}; use that id instead.`,
        )
        const gone = await store.deleteFact('alice', v2.id, 'wrong')
        assert.deepEqual(gone, {...v2, deleted_at: gone.deleted_at, reason: 'wrong'})
        assert.match(gone.deleted_at!, TIME)
        await rejectsWith(
          store.deleteFact('alice', v2.id),
          'not_found',
          `Fact "${v2.id}" of agent "alice" was deleted at ${gone.deleted_at}.`,
        )
        await rejectsWith(
          store.supersede('alice', [v2.id], {content: 'v3', tags: []}),
          'not_found',
          `Fact "${v2.id}" of agent "alice" was deleted at ${gone.deleted_at}.`,
        )
        await rejectsWith(store.deleteFact('alice', 'NOPE'), 'not_found', 'No fact "NOPE" found for agent "alice".')
        assert.equal((await store.listFacts('alice')).length, 2)
      })

      it('a supersede naming one unknown id among live ones stores nothing', async () => {
        const a = await store.addFact('alice', {content: 'live one', tags: []})
        await rejectsWith(
          store.supersede('alice', [a.id, 'NOPE'], {content: 'merged', tags: []}),
          'not_found',
          'No fact "NOPE" found for agent "alice".',
        )
        assert.deepEqual(await store.listFacts('alice'), [a])
      })

      it('a delete of an unknown agent leaves no agent behind', async () => {
        await rejectsWith(store.deleteFact('ghost', 'NOPE'), 'not_found', 'No fact "NOPE" found for agent "ghost".')
        assert.deepEqual(await store.listAgents(), [])
      })

      it('two stores replacing the same fact at once: one wins, the other is told which fact replaced it', async () => {
        const other = open()
        const a = await store.addFact('alice', {content: 'contested', tags: []})
        // Both have read the agent (warm) before they race.
        await other.searchFacts('alice', {text: 'contested', limit: 5})
        await store.searchFacts('alice', {text: 'contested', limit: 5})
        const results = await Promise.allSettled([
          store.supersede('alice', [a.id], {content: 'contested, by the first', tags: []}),
          other.supersede('alice', [a.id], {content: 'contested, by the second', tags: []}),
        ])
        const won = results.filter((r) => r.status === 'fulfilled')
        const lost = results.filter((r) => r.status === 'rejected')
        assert.equal(won.length, 1)
        assert.equal(lost.length, 1)
        const winner = (won[0] as PromiseFulfilledResult<FactRecord>).value
        const error = (lost[0] as PromiseRejectedResult).reason as MemError
        assert.equal(error.code, 'not_found')
        assert.equal(
          error.message,
          `Fact "${a.id}" of agent "alice" was replaced by "${winner.id}" at ${winner.created_at}; use that id instead.`,
        )
        assert.equal((await store.listFacts('alice')).length, 2)
      })
    })

    describe('searchFacts', () => {
      it('finds live facts with scores, best first, and never replaced or deleted ones', async () => {
        const a = await store.addFact('alice', {content: 'The kubernetes cluster runs on hetzner', tags: ['infra']})
        const b = await store.addFact('alice', {content: 'kubernetes upgrades happen on fridays', tags: []})
        await store.addFact('alice', {content: 'lunch is at noon', tags: []})
        const hits = (await store.searchFacts('alice', {text: 'kubernetes cluster', limit: 10})).hits
        assert.deepEqual(
          hits.map((h) => h.fact.id),
          [a.id, b.id],
        )
        assert.ok(hits[0]!.score > hits[1]!.score)
        assert.deepEqual(hits[0]!.fact, a)
        await store.deleteFact('alice', a.id)
        const v2 = await store.supersede('alice', [b.id], {content: 'kubernetes upgrades happen on mondays', tags: []})
        assert.deepEqual(
          (await store.searchFacts('alice', {text: 'kubernetes', limit: 10})).hits.map((h) => h.fact),
          [v2],
        )
      })

      it('filters by tags, since and until, and keeps to the limit', async () => {
        const a = await store.addFact('alice', {content: 'coffee beans from kenya', tags: ['food', 'coffee']})
        await new Promise((r) => setTimeout(r, 5))
        const b = await store.addFact('alice', {content: 'coffee grinder is a comandante', tags: ['coffee']})
        const tagged = (await store.searchFacts('alice', {text: 'coffee', limit: 10, tags: ['food']})).hits
        assert.deepEqual(
          tagged.map((h) => h.fact.id),
          [a.id],
        )
        const since = (await store.searchFacts('alice', {text: 'coffee', limit: 10, since: b.created_at})).hits
        assert.deepEqual(
          since.map((h) => h.fact.id),
          [b.id],
        )
        const until = (await store.searchFacts('alice', {text: 'coffee', limit: 10, until: b.created_at})).hits
        assert.deepEqual(
          until.map((h) => h.fact.id),
          [a.id],
        )
        assert.equal((await store.searchFacts('alice', {text: 'coffee', limit: 1})).hits.length, 1)
        assert.equal((await store.searchFacts('alice', {text: 'coff', limit: 10, partial: true})).hits.length, 2)
      })

      it('gives the context of a thread with the fact it came with', async () => {
        await store.addFact('alice', {content: 'What concert did you see?', tags: [], thread: 'c'})
        const reply = await store.addFact('alice', {content: 'It was Matt Patterson!', tags: [], thread: 'c'})
        const hits = (await store.searchFacts('alice', {text: 'concert', limit: 5})).hits
        assert.ok(hits.some((h) => h.fact.id === reply.id && h.contextFor !== undefined))
      })

      it('with explain, says which query word each hit matched, how, and the term it reached', async () => {
        const a = await store.addFact('alice', {content: 'The kubernetes cluster was deployed', tags: ['infra']})
        const b = await store.addFact('alice', {content: 'deploys go out on fridays', tags: []})
        const plain = (await store.searchFacts('alice', {text: 'deploys kube infra', limit: 10})).hits
        assert.ok(plain.every((h) => h.matched === undefined))
        const hits = (await store.searchFacts('alice', {text: 'deploys kube infra', limit: 10, explain: true})).hits
        assert.deepEqual(
          hits.map((h) => [h.fact.id, h.matched]),
          [
            [
              a.id,
              [
                {word: 'deploys', way: 'term', term: 'deploi'},
                {word: 'kube', way: 'prefix', term: 'kubernet'},
                {word: 'infra', way: 'term', term: 'infra'},
              ],
            ],
            [b.id, [{word: 'deploys', way: 'term', term: 'deploi'}]],
          ],
        )
      })

      it('an agent nobody wrote to has nothing to find, and is not made an agent by searching', async () => {
        assert.deepEqual((await store.searchFacts('nobody', {text: 'anything', limit: 5})).hits, [])
        assert.deepEqual(await store.listAgents(), [])
      })

      it('a store that searched sees what another store wrote since', async () => {
        const other = open()
        const a = await store.addFact('alice', {content: 'the wifi password is on the fridge', tags: []})
        assert.equal((await other.searchFacts('alice', {text: 'wifi', limit: 5})).hits.length, 1)
        const b = await store.addFact('alice', {content: 'the wifi router is in the attic', tags: []})
        await store.deleteFact('alice', a.id)
        assert.deepEqual(
          (await other.searchFacts('alice', {text: 'wifi', limit: 5})).hits.map((h) => h.fact.id),
          [b.id],
        )
      })

      it('concurrent searches and writes of one store agree with a fresh store', async () => {
        const ids: string[] = []
        await Promise.all(
          Array.from({length: 20}, async (_, i) => {
            ids.push((await store.addFact('alice', {content: `note number ${i} about gardens`, tags: []})).id)
            await store.searchFacts('alice', {text: 'gardens', limit: 50})
          }),
        )
        const warm = (await store.searchFacts('alice', {text: 'gardens', limit: 50})).hits
        const fresh = (await open().searchFacts('alice', {text: 'gardens', limit: 50})).hits
        assert.equal(warm.length, 20)
        assert.deepEqual(warm, fresh)
      })
    })

    describe('checkpoints', () => {
      it('saves and resumes the latest, or one by id, as saved', async () => {
        const first = await store.saveCheckpoint('alice', {state: {b: 1, a: [2, {z: null}]}, label: 'one'})
        assert.match(first.id, ID_PATTERN)
        assert.match(first.created_at, TIME)
        assert.deepEqual(first, {
          id: first.id,
          created_at: first.created_at,
          label: 'one',
          state: {b: 1, a: [2, {z: null}]},
        })
        const second = await store.saveCheckpoint('alice', {state: {step: 2}, messages: [{role: 'user', text: 'hi'}]})
        assert.ok(second.id > first.id)
        const latest = await open().getCheckpoint('alice')
        assert.deepEqual(latest, second)
        assert.equal(JSON.stringify((await store.getCheckpoint('alice', first.id)).state), '{"b":1,"a":[2,{"z":null}]}')
        assert.deepEqual(await store.listCheckpoints('alice'), [first, second])
      })

      it('keeps every key of a state and its messages, __proto__, constructor and prototype included, once rewritten too', async () => {
        const state = '{"constructor":"ClassA","prototype":"p","__proto__":{"x":1,"__proto__":[{"":"e"}]},"step":3}'
        const messages = '[{"__proto__":{"role":"user"},"constructor":"c","prototype":[1]}]'
        const saved = await store.saveCheckpoint('alice', {
          state: JSON.parse(state) as Record<string, unknown>,
          messages: JSON.parse(messages) as unknown[],
        })
        // Checkpoints past 64 KiB: the file store folds its journal into the JSON file, which it writes from what it read.
        for (let i = 0; i < 2; i++) await store.saveCheckpoint('alice', {state: {pad: 'x'.repeat(40_000)}})
        const kept = (cp: CheckpointRecord | undefined, how: string) => {
          assert.equal(JSON.stringify(cp?.state), state, how)
          assert.equal(JSON.stringify(cp?.messages), messages, how)
        }
        kept(await open().getCheckpoint('alice', saved.id), 'getCheckpoint')
        const listed = await open().listCheckpoints('alice')
        kept(listed[0], 'listCheckpoints')
        await store.importRecords('bob', {facts: [], checkpoints: listed})
        kept(await open().getCheckpoint('bob', saved.id), 'importRecords')
      })

      it('a missing checkpoint is no_checkpoint, in the same words', async () => {
        await rejectsWith(store.getCheckpoint('alice'), 'no_checkpoint', 'No checkpoint found for agent "alice".')
        await store.saveCheckpoint('alice', {state: {}})
        await rejectsWith(
          store.getCheckpoint('alice', 'NOPE'),
          'no_checkpoint',
          'No checkpoint "NOPE" found for agent "alice".',
        )
        assert.deepEqual(await store.listCheckpoints('nobody'), [])
      })
    })

    describe('listAgents', () => {
      it('lists the agents that hold facts or checkpoints, sorted', async () => {
        await store.addFact('zed', {content: 'z', tags: []})
        await store.saveCheckpoint('Alice', {state: {}})
        await store.addFact('bob.b', {content: 'b', tags: []})
        await store.addFact('bob', {content: 'b', tags: []})
        assert.deepEqual(await open().listAgents(), ['Alice', 'bob', 'bob.b', 'zed'])
      })
    })

    describe('agentsHolding', () => {
      it('names the agents holding a fact or checkpoint id, whatever became of the fact, and no others', async () => {
        const fact = await store.addFact('bob', {content: 'kept by bob', tags: []})
        const cp = await store.saveCheckpoint('carol', {state: {step: 1}})
        // Another agent's text that quotes the id, even as a record would, holds no such record.
        await store.addFact('alice', {content: `see {"id":"${fact.id}","content":"x"} and ${cp.id}`, tags: []})
        const other = open()
        assert.deepEqual(await other.agentsHolding('fact', fact.id), ['bob'])
        assert.deepEqual(await other.agentsHolding('checkpoint', cp.id), ['carol'])
        assert.deepEqual(await other.agentsHolding('checkpoint', fact.id), [])
        assert.deepEqual(await other.agentsHolding('fact', newId()), [])
        await store.deleteFact('bob', fact.id)
        assert.deepEqual(await open().agentsHolding('fact', fact.id), ['bob'])
        // The same record in two agents (imported into both): both, in order.
        await store.importRecords('dave', {facts: [await store.getFact('bob', fact.id)], checkpoints: []})
        assert.deepEqual(await open().agentsHolding('fact', fact.id), ['bob', 'dave'])
      })

      it('an empty store holds nothing', async () => {
        assert.deepEqual(await store.agentsHolding('fact', newId()), [])
        assert.deepEqual(await store.agentsHolding('checkpoint', newId()), [])
      })
    })

    describeChangeFeed({store: () => store, open, backup: () => backing.backup()})

    describe('importRecords', () => {
      const old = (i: number, extra: Partial<FactRecord> = {}): FactRecord => ({
        id: newId(Date.parse('2020-01-01T00:00:00.000Z') + i * 1000),
        content: `imported fact ${i} about sailing`,
        tags: ['sea'],
        created_at: new Date(Date.parse('2020-01-01T00:00:00.000Z') + i * 1000).toISOString(),
        ...extra,
      })

      it('keeps ids, times and history marks, skips what is already stored, and applies marks to live facts', async () => {
        const a = old(1)
        const b = old(2, {superseded_by: 'X', superseded_at: '2020-02-01T00:00:00.000Z'})
        const c = old(3)
        const cp: CheckpointRecord = {
          id: newId(Date.parse('2020-01-05T00:00:00.000Z')),
          created_at: '2020-01-05T00:00:00.000Z',
          state: {k: 1},
        }
        const result = await store.importRecords('alice', {facts: [a, b, c, a], checkpoints: [cp]})
        assert.deepEqual(result, {facts: [a.id, b.id, c.id], checkpoints: [cp.id], marked: []})
        assert.deepEqual(await store.listFacts('alice'), [a, b, c])
        const visited: FactRecord[] = []
        await store.eachFact('alice', (fact) => visited.push(fact))
        assert.deepEqual(visited, [a, b, c], 'eachFact visits what listFacts lists, in its order')
        assert.deepEqual(await store.listCheckpoints('alice'), [cp])
        assert.deepEqual(
          (await store.searchFacts('alice', {text: 'sailing', limit: 10})).hits.map((h) => h.fact.id).sort(),
          [a.id, c.id],
        )

        const mark = {deleted_at: '2020-03-01T00:00:00.000Z', reason: 'gone'}
        const d = old(4)
        const again = await store.importRecords('alice', {
          facts: [a, d],
          checkpoints: [cp],
          marks: [
            {id: a.id, patch: mark},
            {id: b.id, patch: {deleted_at: '2020-03-02T00:00:00.000Z'}},
            {id: 'UNKNOWN', patch: mark},
          ],
        })
        assert.deepEqual(again, {facts: [d.id], checkpoints: [], marked: [a.id]})
        assert.deepEqual(await store.getFact('alice', a.id), {...a, ...mark})
        assert.deepEqual(await store.getFact('alice', b.id), b)
        assert.deepEqual(
          (await open().searchFacts('alice', {text: 'sailing', limit: 10})).hits.map((h) => h.fact.id).sort(),
          [c.id, d.id],
        )
      })

      it('new ids sort after the imported ones, and imported facts are guarded against duplicates', async () => {
        const future = {...old(1), id: newId(Date.now() + 3_600_000), content: 'from the future'}
        await store.importRecords('alice', {facts: [future], checkpoints: []})
        const next = await store.addFact('alice', {content: 'now', tags: []})
        assert.ok(next.id > future.id)
        const dup = await store.addFact('alice', {content: 'From the future', tags: []})
        assert.equal(dup.id, future.id)
        assert.equal(dup.duplicate, true)
      })
    })
  })
}
