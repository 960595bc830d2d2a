import assert from 'node:assert/strict'
import {rmSync} from 'node:fs'

import {FileStore} from '../../src/store/file/file-store.js'
import {newId} from '../../src/store/ids.js'
import {PostgresStore} from '../../src/store/postgres/postgres-store.js'
import type {FactRecord} from '../../src/store/records.js'
import {mem, tempHome} from '../helpers/mem.js'
import {freshDatabase, sql} from '../helpers/postgres.js'

/** A small deterministic generator (mulberry32), so the corpus is the same on every run. */
function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const WORDS = (
  'kubernetes cluster hetzner pump basement grundfos coffee grinder kenya beans garden tomato ' +
  'concert patterson guitar flight lisbon hotel invoice march deploy friday postgres backup ' +
  'migration index search ranking budget travel train paris dentist appointment monday wifi ' +
  'router attic password fridge bicycle tyre repair yoga class tuesday sister birthday gift book'
).split(' ')

function corpus(): FactRecord[] {
  const next = random(14)
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!
  const start = Date.parse('2025-01-01T00:00:00.000Z')
  const facts: FactRecord[] = []
  for (let i = 0; i < 600; i++) {
    const time = start + i * 3_600_000
    const words = Array.from({length: 3 + Math.floor(next() * 9)}, () => pick(WORDS))
    const asks = next() < 0.15
    const fact: FactRecord = {
      id: newId(time),
      content: `${words.join(' ')}${asks ? '?' : '.'}`,
      tags: next() < 0.3 ? [pick(['home', 'work', 'travel'])] : [],
      created_at: new Date(time).toISOString(),
      ...(next() < 0.5 ? {thread: `chat-${Math.floor(i / 12)}`} : {}),
    }
    // Some of the history: replaced and deleted facts must rank nowhere, on both stores.
    if (next() < 0.1) Object.assign(fact, {deleted_at: new Date(time + 1000).toISOString()})
    facts.push(fact)
  }
  return facts
}

/** The scores come from the same index code; what differs is how each store feeds it. */
describe('PostgreSQL ranks exactly as the files', function () {
  this.timeout(120_000)

  it('the same facts, scores and context for every query, after the same later changes', async () => {
    const {home} = tempHome()
    const files = new FileStore(home)
    const db = await PostgresStore.open(await freshDatabase())
    try {
      const facts = corpus()
      for (const store of [files, db]) await store.importRecords('alice', {facts, checkpoints: []})
      const next = random(7)
      const queries = Array.from({length: 40}, () =>
        Array.from({length: 1 + Math.floor(next() * 3)}, () => WORDS[Math.floor(next() * WORDS.length)]).join(' '),
      )
      const options = [
        {limit: 10},
        {limit: 50, tags: ['home']},
        {limit: 5, since: '2025-01-10T00:00:00.000Z', until: '2025-01-20T00:00:00.000Z'},
        {limit: 10, partial: true},
        {limit: 10, explain: true},
      ]
      const compare = async () => {
        for (const text of [...queries, 'what concert on march 3?', 'kube', 'coffe grnder'])
          for (const o of options) {
            const want = (await files.searchFacts('alice', {text, ...o})).hits
            const got = (await db.searchFacts('alice', {text, ...o})).hits
            assert.deepEqual(got, want, `${text} ${JSON.stringify(o)}`)
          }
      }
      await compare()
      // The same marks on both, then again: the warm index follows the change cursor.
      const live = facts.filter((f) => f.deleted_at === undefined)
      const marks = live.slice(0, 60).map((f, i) => ({
        id: f.id,
        patch:
          i % 2
            ? {deleted_at: '2025-06-01T00:00:00.000Z'}
            : {superseded_by: live[100]!.id, superseded_at: '2025-06-01T00:00:00.000Z'},
      }))
      const more = corpus()
        .slice(0, 40)
        .map((f) => ({...f, id: newId(Date.parse('2025-07-01T00:00:00.000Z'))}))
      for (const store of [files, db]) await store.importRecords('alice', {facts: more, checkpoints: [], marks})
      await compare()
    } finally {
      await db.close()
      rmSync(home, {recursive: true, force: true})
    }
  })

  it('a one-shot mem search saves the index in the database and then reads it, with the changes since', async () => {
    const url = await freshDatabase()
    const db = await PostgresStore.open(url)
    const {home} = tempHome()
    try {
      const facts = [...corpus(), ...corpus(), ...corpus()].map((f, i) => ({
        ...f,
        id: newId(Date.parse(f.created_at) + i),
      }))
      await db.importRecords('alice', {facts, checkpoints: []})
      const env = {MEM_STORE: url}
      const search = (text: string) => {
        const r = mem(home, ['search', '--json', '--agent', 'alice', '--limit', '20', text], {env})
        assert.equal(r.code, 0, r.stderr)
        return JSON.parse(r.stdout) as {facts: {id: string; score: number}[]}
      }
      // What a store with nothing saved finds (in-process, it never saves), for comparison.
      const fresh = async (text: string) => {
        const s = await PostgresStore.open(url)
        try {
          return (await s.searchFacts('alice', {text, limit: 20})).hits.map((h) => ({id: h.fact.id, score: h.score}))
        } finally {
          await s.close()
        }
      }
      const ids = (found: {facts: {id: string; score: number}[]}) =>
        found.facts.map((f) => ({id: f.id, score: f.score}))
      assert.deepEqual(await sql(url, 'SELECT agent FROM mem_search_index'), [])
      assert.deepEqual(ids(search('kubernetes cluster')), await fresh('kubernetes cluster'))
      const saved = await sql<{revision: string}>(url, 'SELECT revision FROM mem_search_index')
      assert.equal(saved.length, 1)

      const added = mem(home, ['add', '--json', '--agent', 'alice', 'zanzibar ferry timetable'], {env})
      const newId_ = (JSON.parse(added.stdout) as {fact_id: string}).fact_id
      const gone = facts.find((f) => f.deleted_at === undefined && f.content.includes('pump'))!
      mem(home, ['reflect', 'delete', '--agent', 'alice', '--fact', gone.id], {env})
      assert.deepEqual(
        ids(search('zanzibar')).map((f) => f.id),
        [newId_],
      )
      assert.deepEqual(ids(search('pump basement')), await fresh('pump basement'))
      assert.ok(!ids(search('pump basement')).some((f) => f.id === gone.id))
      // Still the index saved first: two changes are not worth saving again.
      assert.deepEqual(await sql<{revision: string}>(url, 'SELECT revision FROM mem_search_index'), saved)

      // A saved index that does not load is rebuilt from the facts.
      await sql(url, `UPDATE mem_search_index SET data = '\\x00010203'::bytea`)
      assert.deepEqual(ids(search('coffee grinder')), await fresh('coffee grinder'))
    } finally {
      await db.close()
      rmSync(home, {recursive: true, force: true})
    }
  })
})
