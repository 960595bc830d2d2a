import assert from 'node:assert/strict'
import {rmSync} from 'node:fs'

import {bytesIn, decodeIndex, joined, type EncodedIndex} from '../../src/index/index-codec.js'
import type {IndexedStore, IndexKeeper} from '../../src/index/indexed-store.js'
import {SearchLayer} from '../../src/index/search-layer.js'
import {FileStore} from '../../src/store/file/file-store.js'
import {newId} from '../../src/store/ids.js'
import {PostgresStore} from '../../src/store/postgres/postgres-store.js'
import type {FactRecord} from '../../src/store/records.js'
import type {SearchQuery, Store} from '../../src/store/store.js'
import {backupDatabase, backupHome} from '../helpers/backups.js'
import {tempHome} from '../helpers/mem.js'
import {freshDatabase} from '../helpers/postgres.js'

const WORDS = (
  'kubernetes cluster pump basement coffee grinder kenya beans garden tomato concert guitar flight ' +
  'lisbon hotel invoice deploy friday postgres backup budget travel train dentist router attic'
).split(' ')

/** `count` facts from a fixed seed: tags, threads, questions and some deleted. */
function corpus(count: number, seed: number): FactRecord[] {
  let a = seed
  const next = () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const pick = () => WORDS[Math.floor(next() * WORDS.length)]!
  const start = Date.parse('2025-01-01T00:00:00.000Z') + seed * 1000
  return Array.from({length: count}, (_, i) => {
    const time = start + i * 3_600_000
    return {
      id: newId(time),
      content: `${Array.from({length: 3 + Math.floor(next() * 8)}, pick).join(' ')}${next() < 0.15 ? '?' : '.'}`,
      tags: next() < 0.3 ? ['home'] : [],
      created_at: new Date(time).toISOString(),
      ...(next() < 0.4 ? {thread: `chat-${Math.floor(i / 10)}`} : {}),
      ...(next() < 0.1 ? {deleted_at: new Date(time + 1000).toISOString()} : {}),
    }
  })
}

const QUERIES: SearchQuery[] = [
  ...['coffee grinder', 'kubernetes deploy friday', 'tomato', 'lisbn hotel', 'what budget?'].map((text) => ({
    text,
    limit: 10,
  })),
  {text: 'garden', limit: 50, tags: ['home']},
  {text: 'rout', limit: 10, partial: true},
  {text: 'concert guitar', limit: 10, explain: true},
]

/** Only the change feed and the facts by id of a store, as a third backend would offer them. */
function feedOf(store: Store): IndexedStore & {calls: (string | undefined)[]} {
  const calls: (string | undefined)[] = []
  return {
    calls,
    changesSince: (agent, cursor) => {
      calls.push(cursor)
      return store.changesSince(agent, cursor)
    },
    getFacts: (agent, ids) => store.getFacts(agent, ids),
  }
}

/** The ranking code's signature a build stamps saved indexes with; running from sources there is none. */
const SIGNATURE = 'test-build'

/** A keeper in memory, as a backend's table or folder would hold the bytes. */
function memoryKeeper(): IndexKeeper & {saves: number; held: Map<string, Buffer>} {
  const held = new Map<string, Buffer>()
  const keeper = {
    saves: 0,
    held,
    load: async (agent: string) => {
      const bytes = held.get(agent)
      return bytes && bytesIn(bytes)
    },
    save: async (agent: string, index: EncodedIndex) => {
      keeper.saves++
      held.set(agent, joined(index))
    },
  }
  return keeper
}

/** A store to read through the layer, and to compare the layer's hits with. */
interface Backing {
  /** The store whose own search the layer must match (a long-running process's). */
  store: Store
  /** Another store on the same data, as another process opens it. */
  open(): Promise<Store>
  /** Copies the data aside; the function returned puts the copy back, as restoring a backup does. */
  backup(): Promise<() => Promise<void>>
  cleanup(): Promise<void>
}

const BACKINGS: {name: string; make(): Promise<Backing>}[] = [
  {
    name: 'the files',
    make: async () => {
      const {home} = tempHome()
      const store = new FileStore(home)
      return {
        store,
        open: async () => new FileStore(home, {shortLived: true}),
        backup: () => backupHome(home),
        cleanup: async () => {
          await store.close()
          rmSync(home, {recursive: true, force: true})
        },
      }
    },
  },
  {
    name: 'PostgreSQL',
    make: async () => {
      const url = await freshDatabase()
      const store = await PostgresStore.open(url)
      const others: Store[] = []
      return {
        store,
        open: async () => {
          const other = await PostgresStore.open(url)
          others.push(other)
          return other
        },
        backup: () => backupDatabase(url),
        cleanup: async () => {
          for (const other of [store, ...others]) await other.close()
        },
      }
    },
  },
]

/** Every query of QUERIES gives exactly what the store's own search gives. */
async function sameAsStore(layer: SearchLayer, store: Store): Promise<void> {
  for (const query of QUERIES)
    assert.deepEqual(
      (await layer.search('alice', query)).hits,
      (await store.searchFacts('alice', query)).hits,
      JSON.stringify(query),
    )
}

for (const backing of BACKINGS)
  describe(`the search layer over ${backing.name}, given only the change feed`, function () {
    this.timeout(60_000)
    let b: Backing
    let store: Store
    beforeEach(async () => {
      b = await backing.make()
      store = b.store
    })
    afterEach(() => b.cleanup())

    it('finds and ranks exactly as the store, through adds, replacements, deletions and another process', async () => {
      const facts = corpus(400, 1)
      await store.importRecords('alice', {facts, checkpoints: []})
      const feed = feedOf(await b.open())
      const layer = new SearchLayer(feed)
      await sameAsStore(layer, store)
      assert.equal(feed.calls.length, QUERIES.length, 'one catch-up a search, when nothing moved')

      const added = await store.addFact('alice', {content: 'the coffee grinder needs new burrs', tags: []})
      const live = facts.filter((f) => f.deleted_at === undefined)
      await store.supersede('alice', [live[3]!.id], {content: 'garden tomato moved to the attic', tags: ['home']})
      await store.deleteFact('alice', live[5]!.id)
      // Another process's writes reach the layer only through the feed.
      const other = await b.open()
      await other.addFact('alice', {content: 'kubernetes deploy moved to monday', tags: []})
      await other.importRecords('alice', {facts: corpus(50, 2), checkpoints: []})
      await sameAsStore(layer, store)
      assert.ok((await layer.search('alice', {text: 'burrs', limit: 5})).hits.some((hit) => hit.fact.id === added.id))
      const tomato = (await layer.search('alice', {text: 'tomato', limit: 100})).hits
      assert.ok(!tomato.some((hit) => hit.fact.id === live[3]!.id))
    })

    it('starts over when the data went back to a backup, and finds nothing of the lost changes', async () => {
      await store.importRecords('alice', {facts: corpus(200, 3), checkpoints: []})
      const restore = await b.backup()
      const layer = new SearchLayer(feedOf(await b.open()))
      const lost = await store.addFact('alice', {content: 'zanzibar ferry timetable', tags: []})
      assert.deepEqual(
        (await layer.search('alice', {text: 'zanzibar', limit: 5})).hits.map((h) => h.fact.id),
        [lost.id],
      )
      await restore()
      assert.deepEqual((await layer.search('alice', {text: 'zanzibar', limit: 5})).hits, [])
      await sameAsStore(layer, store)
    })

    it('a process that starts loads the index its keeper saved and reads only the changes since', async () => {
      await store.importRecords('alice', {facts: corpus(1200, 4), checkpoints: []})
      const keeper = memoryKeeper()
      const first = new SearchLayer({...feedOf(store), keeper}, {signature: SIGNATURE})
      await sameAsStore(first, store)
      assert.equal(keeper.saves, 1, 'saved once it held enough facts')

      await store.addFact('alice', {content: 'coffee grinder descaled on friday', tags: []})
      const feed = feedOf(store)
      const second = new SearchLayer({...feed, keeper}, {signature: SIGNATURE})
      await sameAsStore(second, store)
      assert.notEqual(feed.calls[0], undefined, 'caught up from the saved cursor, not from nothing')
      assert.equal(keeper.saves, 1, 'one change is not worth saving again')
    })

    it('bytes the keeper holds that do not decode are rebuilt from the facts', async () => {
      await store.importRecords('alice', {facts: corpus(300, 5), checkpoints: []})
      const keeper = memoryKeeper()
      keeper.held.set('alice', Buffer.from('not an index'))
      const feed = feedOf(store)
      await sameAsStore(new SearchLayer({...feed, keeper}, {signature: SIGNATURE}), store)
      assert.equal(feed.calls[0], undefined, 'built from every fact')
      assert.equal(keeper.saves, 1, 'saved over the bytes that did not decode, though under the size worth saving')
      assert.ok(decodeIndex(bytesIn(keeper.held.get('alice')!), SIGNATURE), 'what it saved decodes')
    })

    it('searches that run while facts are written never serve a fact that is no longer live', async () => {
      const facts = corpus(300, 6)
      await store.importRecords('alice', {facts, checkpoints: []})
      const layer = new SearchLayer(feedOf(await b.open()))
      const writer = await b.open()
      const live = facts.filter((f) => f.deleted_at === undefined && f.content.includes('coffee'))
      const gone = new Set(live.slice(0, 20).map((f) => f.id))
      const calls: Promise<unknown>[] = []
      for (const id of gone)
        calls.push(layer.search('alice', {text: 'coffee', limit: 200}), writer.deleteFact('alice', id))
      await Promise.all(calls)
      const hits = (await layer.search('alice', {text: 'coffee', limit: 200})).hits
      assert.ok(hits.length > 0)
      assert.ok(hits.every((hit) => !gone.has(hit.fact.id)))
      await sameAsStore(layer, store)
    })
  })
