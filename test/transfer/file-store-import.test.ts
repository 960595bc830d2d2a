import assert from 'node:assert/strict'
import {readdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {FileStore} from '../../src/store/file/file-store.js'
import {newId} from '../../src/store/ids.js'
import {agentDir} from '../../src/store/file/paths.js'
import type {FactRecord} from '../../src/store/store.js'
import {tempHome} from '../helpers/mem.js'

describe('FileStore.importRecords', () => {
  let h: ReturnType<typeof tempHome>
  beforeEach(() => {
    h = tempHome()
  })
  afterEach(() => h.cleanup())

  const fact = (i: number, extra: Partial<FactRecord> = {}): FactRecord => ({
    id: newId(Date.parse('2026-01-01T00:00:00.000Z') + i),
    content: `Fact number ${i}`,
    tags: ['bulk'],
    created_at: '2026-01-01T00:00:00.000Z',
    ...extra,
  })

  it('keeps ids, times and history marks, and packs records into bounded segments', async () => {
    const store = new FileStore(h.home)
    await store.addFact('alice', {content: 'Written before the import', tags: []})
    const facts = Array.from({length: 2500}, (_, i) => fact(i))
    facts[1] = {...facts[1]!, superseded_by: facts[2]!.id, superseded_at: '2026-01-02T00:00:00.000Z'}
    facts[2] = {...facts[2]!, supersedes: [facts[1]!.id]}
    facts[3] = {...facts[3]!, deleted_at: '2026-01-03T00:00:00.000Z', reason: 'wrong'}
    const added = await store.importRecords('alice', {
      facts,
      checkpoints: [{id: newId(), created_at: '2026-01-04T00:00:00.000Z', state: {step: 9}}],
    })
    assert.equal(added.facts.length, 2500)
    assert.equal(added.checkpoints.length, 1)

    const dir = join(agentDir(h.home, 'alice'), 'facts')
    const segments = readdirSync(dir).filter((n) => /^\d{6}\.json$/.test(n))
    assert.deepEqual(segments, ['000001.json', '000002.json', '000003.json'])
    for (const name of segments) assert.ok(JSON.parse(readFileSync(join(dir, name), 'utf8')).records.length <= 1000)

    // A second store is another process: it must see the import through the revision stamp.
    const other = new FileStore(h.home)
    const all = await other.listFacts('alice')
    assert.equal(all.length, 2501)
    assert.deepEqual(
      all.find((f) => f.id === facts[1]!.id),
      facts[1],
    )
    assert.deepEqual(
      all.find((f) => f.id === facts[3]!.id),
      facts[3],
    )
    const hits = (await other.searchFacts('alice', {text: 'Fact number 1', limit: 100, tags: ['bulk']})).hits
    assert.ok(
      !hits.some((hit) => hit.fact.id === facts[1]!.id || hit.fact.id === facts[3]!.id),
      'superseded and deleted facts stay out of search',
    )
    assert.deepEqual((await other.getCheckpoint('alice')).state, {step: 9})
  })

  it('marks live facts replaced or deleted, in old segments and in the one it appended to', async () => {
    const store = new FileStore(h.home)
    const watcher = new FileStore(h.home)
    const old = Array.from({length: 1001}, (_, i) => fact(i))
    await store.importRecords('erin', {facts: old, checkpoints: []})
    assert.equal((await watcher.listFacts('erin')).length, 1001)
    const next = fact(5000)
    const result = await store.importRecords('erin', {
      facts: [next],
      checkpoints: [],
      marks: [
        {id: old[0]!.id, patch: {superseded_by: next.id, superseded_at: '2026-02-01T00:00:00.000Z'}},
        {id: old[1000]!.id, patch: {deleted_at: '2026-02-01T00:00:00.000Z', reason: 'wrong'}},
        {id: 'NOT-STORED', patch: {deleted_at: '2026-02-01T00:00:00.000Z'}},
      ],
    })
    assert.deepEqual(result, {facts: [next.id], checkpoints: [], marked: [old[0]!.id, old[1000]!.id]})
    for (const s of [store, watcher, new FileStore(h.home)]) {
      const all = await s.listFacts('erin')
      assert.equal(all.length, 1002, 'the appended fact is kept when its segment is marked too')
      assert.equal(all.find((f) => f.id === old[0]!.id)?.superseded_by, next.id)
      assert.equal(all.find((f) => f.id === old[1000]!.id)?.reason, 'wrong')
      const hits = (await s.searchFacts('erin', {text: 'Fact number 0', limit: 100})).hits
      assert.ok(!hits.some((hit) => hit.fact.id === old[0]!.id), 'a marked fact leaves the index')
    }
    const again = await store.importRecords('erin', {
      facts: [],
      checkpoints: [],
      marks: [{id: old[0]!.id, patch: {deleted_at: '2026-03-01T00:00:00.000Z'}}],
    })
    assert.deepEqual(again.marked, [], 'a fact that is no longer live is not marked again')
  })

  it('holds one segment after an import of many batches, and still skips every id it wrote', async () => {
    const store = new FileStore(h.home)
    const facts = Array.from({length: 6000}, (_, i) => fact(i))
    for (let at = 0; at < facts.length; at += 1500)
      await store.importRecords('gina', {facts: facts.slice(at, at + 1500), checkpoints: []}, {more: at + 1500 < 6000})
    // Every record held, with its id map, would cost about 10 MB here; the last segment alone well
    // under 1 MB. (The search index the import saved stays warm for the next search, within the budget.)
    const {files} = store.cacheUse()
    assert.ok(files.bytes < 1024 * 1024, `${files.bytes} bytes of files held`)
    const later = fact(7000)
    const again = await store.importRecords('gina', {facts: [facts[0]!, facts[2999]!, later], checkpoints: []})
    assert.deepEqual(again.facts, [later.id])
    const other = new FileStore(h.home)
    assert.equal((await other.listFacts('gina')).length, 6001)
    const hits = (await other.searchFacts('gina', {text: 'Fact number 4321', limit: 1})).hits
    assert.equal(hits[0]?.fact.id, facts[4321]!.id)
  })

  it('leaves records whose id is present alone and adds a repeated id once', async () => {
    const store = new FileStore(h.home)
    const watcher = new FileStore(h.home)
    assert.deepEqual(await watcher.listFacts('bob'), [])
    const first = fact(1)
    await store.importRecords('bob', {facts: [first], checkpoints: []})
    const second = fact(2)
    const again = await store.importRecords('bob', {
      facts: [{...first, content: 'changed'}, second, second],
      checkpoints: [],
    })
    assert.deepEqual(again.facts, [second.id])
    const stored = await watcher.listFacts('bob')
    assert.equal(stored.length, 2)
    assert.equal(stored[0]!.content, 'Fact number 1')
  })
})
