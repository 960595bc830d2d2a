import assert from 'node:assert/strict'
import {cpSync, mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import type {IndexedStore, IndexKeeper} from '../../src/index/indexed-store.js'
import {SearchLayer} from '../../src/index/search-layer.js'
import {FileStore} from '../../src/store/file/file-store.js'
import {newId} from '../../src/store/ids.js'
import type {FactRecord} from '../../src/store/records.js'
import type {SearchQuery, Store} from '../../src/store/store.js'
import {tempHome} from '../helpers/mem.js'

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
function memoryKeeper(): IndexKeeper & {saves: number} {
  const held = new Map<string, Buffer>()
  const keeper = {
    saves: 0,
    load: async (agent: string) => held.get(agent),
    save: async (agent: string, bytes: Buffer) => {
      keeper.saves++
      held.set(agent, bytes)
    },
  }
  return keeper
}

async function sameAsFiles(layer: SearchLayer, files: FileStore): Promise<void> {
  for (const query of QUERIES)
    assert.deepEqual(await layer.search('alice', query), await files.searchFacts('alice', query), JSON.stringify(query))
}

describe('the search layer over a store that offers only its change feed', function () {
  this.timeout(60_000)
  let home: string
  let files: FileStore
  beforeEach(() => {
    home = tempHome().home
    files = new FileStore(home)
  })
  afterEach(async () => {
    await files.close()
    rmSync(home, {recursive: true, force: true})
  })

  it('finds and ranks exactly as the store it reads, through adds, replacements, deletions and another process', async () => {
    const facts = corpus(400, 1)
    await files.importRecords('alice', {facts, checkpoints: []})
    const layer = new SearchLayer(feedOf(new FileStore(home)))
    await sameAsFiles(layer, files)

    const added = await files.addFact('alice', {content: 'the coffee grinder needs new burrs', tags: []})
    const live = facts.filter((f) => f.deleted_at === undefined)
    await files.supersede('alice', [live[3]!.id], {content: 'garden tomato moved to the attic', tags: ['home']})
    await files.deleteFact('alice', live[5]!.id)
    // Another process's writes reach the layer only through the feed.
    const other = new FileStore(home, {shortLived: true})
    await other.addFact('alice', {content: 'kubernetes deploy moved to monday', tags: []})
    await other.importRecords('alice', {facts: corpus(50, 2), checkpoints: []})
    await sameAsFiles(layer, files)
    assert.ok((await layer.search('alice', {text: 'burrs', limit: 5})).some((hit) => hit.fact.id === added.id))
    assert.ok(!(await layer.search('alice', {text: 'tomato', limit: 100})).some((hit) => hit.fact.id === live[3]!.id))
  })

  it('starts over when the data went back to a backup, and finds nothing of the lost changes', async () => {
    await files.importRecords('alice', {facts: corpus(200, 3), checkpoints: []})
    const copy = join(mkdtempSync(join(tmpdir(), 'mem-backup-')), 'home')
    cpSync(home, copy, {recursive: true})
    const layer = new SearchLayer(feedOf(new FileStore(home)))
    const lost = await files.addFact('alice', {content: 'zanzibar ferry timetable', tags: []})
    assert.deepEqual(
      (await layer.search('alice', {text: 'zanzibar', limit: 5})).map((h) => h.fact.id),
      [lost.id],
    )
    await files.close()
    rmSync(home, {recursive: true, force: true})
    cpSync(copy, home, {recursive: true})
    rmSync(join(copy, '..'), {recursive: true, force: true})
    files = new FileStore(home)
    assert.deepEqual(await layer.search('alice', {text: 'zanzibar', limit: 5}), [])
    await sameAsFiles(layer, files)
  })

  it('a process that starts loads the index its keeper saved and reads only the changes since', async () => {
    await files.importRecords('alice', {facts: corpus(1200, 4), checkpoints: []})
    const keeper = memoryKeeper()
    const first = new SearchLayer({...feedOf(files), keeper}, SIGNATURE)
    await sameAsFiles(first, files)
    assert.equal(keeper.saves, 1, 'saved once it held enough facts')

    await files.addFact('alice', {content: 'coffee grinder descaled on friday', tags: []})
    const feed = feedOf(files)
    const second = new SearchLayer({...feed, keeper}, SIGNATURE)
    await sameAsFiles(second, files)
    assert.equal(feed.calls[0] !== undefined, true, 'caught up from the saved cursor, not from nothing')
    assert.equal(keeper.saves, 1, 'one change is not worth saving again')
  })

  it('bytes the keeper holds that do not decode are rebuilt from the facts', async () => {
    await files.importRecords('alice', {facts: corpus(300, 5), checkpoints: []})
    const keeper = memoryKeeper()
    await keeper.save('alice', Buffer.from('not an index'), {cursor: '', signature: SIGNATURE})
    const feed = feedOf(files)
    await sameAsFiles(new SearchLayer({...feed, keeper}, SIGNATURE), files)
    assert.equal(feed.calls[0], undefined, 'built from every fact')
  })

  it('searches that run while facts are written never serve a fact that is no longer live', async () => {
    const facts = corpus(300, 6)
    await files.importRecords('alice', {facts, checkpoints: []})
    const layer = new SearchLayer(feedOf(new FileStore(home)))
    const writer = new FileStore(home)
    const live = facts.filter((f) => f.deleted_at === undefined && f.content.includes('coffee'))
    const searches: Promise<unknown>[] = []
    for (const fact of live.slice(0, 20)) {
      searches.push(layer.search('alice', {text: 'coffee', limit: 200}))
      searches.push(writer.deleteFact('alice', fact.id))
    }
    await Promise.all(searches)
    const gone = new Set(live.slice(0, 20).map((f) => f.id))
    const hits = await layer.search('alice', {text: 'coffee', limit: 200})
    assert.ok(hits.length > 0)
    assert.ok(hits.every((hit) => !gone.has(hit.fact.id)))
    await writer.close()
    await sameAsFiles(layer, files)
  })
})
