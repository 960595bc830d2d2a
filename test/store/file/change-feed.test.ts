import assert from 'node:assert/strict'
import {copyFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'

import {mem, tempHome} from '../../helpers/mem.js'
import {stampFactSegments, writeFactSegments} from '../../helpers/segments.js'
import {FACT_SEGMENT} from '../../../src/store/file/collections.js'
import {FileStore} from '../../../src/store/file/file-store.js'
import {newId} from '../../../src/store/ids.js'
import {agentDir} from '../../../src/store/file/paths.js'
import {isLive, type FactRecord} from '../../../src/store/records.js'
import {SegmentedFiles, segmentName} from '../../../src/store/file/segments.js'
import type {FactChanges} from '../../../src/store/store.js'

/**
 * The file store's change feed where only files can go: a segment edited by hand or restored
 * from its `.bak`, a journal folded into its segment, and a write by the `mem` binary (built:
 * `npm run build`). The same for every store is in the conformance suite (describe-change-feed.ts).
 */
describe('the change feed of the files', function () {
  this.timeout(60_000)
  let home: string
  let cleanup: () => void

  beforeEach(() => ({home, cleanup} = tempHome()))
  afterEach(() => cleanup())

  const segment = () => new SegmentedFiles<FactRecord>(agentDir(home, 'default'), FACT_SEGMENT)
  const path = (n = 1) => segment().path(segmentName(n))

  function apply(held: Map<string, FactRecord>, changes: FactChanges): Map<string, FactRecord> {
    const next = changes.reset ? new Map<string, FactRecord>() : new Map(held)
    for (const fact of changes.facts) next.set(fact.id, fact)
    return next
  }

  async function liveIds(store: FileStore): Promise<string[]> {
    return (await store.listFacts('default'))
      .filter(isLive)
      .map((f) => f.id)
      .sort()
  }

  function heldLive(held: Map<string, FactRecord>): string[] {
    return [...held.values()]
      .filter(isLive)
      .map((f) => f.id)
      .sort()
  }

  const imported = [1, 2, 3].map((i): FactRecord => ({
    id: newId(Date.UTC(2024, 0, 1) + i * 60_000),
    content: `imported fact ${i}`,
    tags: [],
    created_at: new Date(Date.UTC(2024, 0, 1) + i * 60_000).toISOString(),
  }))
  const old = (i: number): FactRecord => imported[i - 1]!

  /** Edits the records of the first segment (journal folded in) as a person with an editor would. */
  function editByHand(edit: (records: FactRecord[]) => FactRecord[]): void {
    const records = segment().read(segmentName(1)).records
    const file = JSON.parse(readFileSync(path(), 'utf8')) as {records: FactRecord[]}
    file.records = edit(records)
    rmSync(`${path()}l`, {force: true})
    writeFileSync(`${path()}.edit`, JSON.stringify(file, null, 2))
    renameSync(`${path()}.edit`, path())
  }

  for (const shortLived of [false, true]) {
    describe(shortLived ? 'one command per process' : 'a long-running process', () => {
      const open = () => new FileStore(home, {shortLived})

      it('a record removed by hand is a reset, with every fact as the files hold them', async () => {
        const store = open()
        const a = await store.addFact('default', {content: 'stays', tags: []})
        const b = await store.addFact('default', {content: 'removed by hand', tags: []})
        const seen = await store.changesSince('default')
        editByHand((records) => records.filter((f) => f.id !== b.id))
        const changes = await store.changesSince('default', seen.cursor)
        assert.equal(changes.reset, true)
        assert.deepEqual(changes.facts, [a])
      })

      it('content changed by hand under its id comes in the delta as it reads now', async () => {
        const store = open()
        const a = await store.addFact('default', {content: 'the kettle is in the attic', tags: []})
        await store.addFact('default', {content: 'the tent is in the loft', tags: []})
        const seen = await store.changesSince('default')
        editByHand((records) => records.map((f) => (f.id === a.id ? {...f, content: 'the kettle is in the shed'} : f)))
        const changes = await store.changesSince('default', seen.cursor)
        const held = apply(new Map(seen.facts.map((f) => [f.id, f])), changes)
        assert.equal(held.get(a.id)?.content, 'the kettle is in the shed')
        assert.deepEqual(heldLive(held), await liveIds(store))
      })

      it('a segment restored from its .bak, which lacks a later write, is a reset', async () => {
        const store = open()
        await store.importRecords('default', {facts: [old(1), old(2)], checkpoints: []})
        await store.importRecords('default', {facts: [old(3)], checkpoints: []})
        assert.ok(existsSync(`${path()}.bak`), 'the import kept the version before it')
        const seen = await store.changesSince('default')
        copyFileSync(`${path()}.bak`, `${path()}.restored`)
        renameSync(`${path()}.restored`, path())
        const changes = await store.changesSince('default', seen.cursor)
        assert.equal(changes.reset, true)
        assert.deepEqual(changes.facts, [old(1), old(2)])
      })

      it('a journal folded into its segment keeps the cursor good: only what is new comes', async () => {
        const store = open()
        const first = await store.addFact('default', {content: 'the first fact', tags: []})
        const seen = await store.changesSince('default')
        // Enough to pass the journal's bound (64 KiB), so the segment is written whole again.
        const added: string[] = []
        for (let i = 0; i < 40; i++)
          added.push((await store.addFact('default', {content: `${i} ${'long words '.repeat(200)}`, tags: []})).id)
        assert.ok(!existsSync(`${path()}l`) || readFileSync(`${path()}l`).length < 64 * 1024)
        assert.ok(existsSync(`${path()}l.bak`), 'a journal was folded')
        const changes = await store.changesSince('default', seen.cursor)
        assert.equal(changes.reset, false)
        assert.deepEqual(
          changes.facts.map((f) => f.id),
          added,
        )
        assert.ok(!changes.facts.some((f) => f.id === first.id))
      })

      it('getFacts reads facts from segments as mem writes them, with or without a journal, and one edited by hand', async () => {
        writeFactSegments(home, 30, 10, (i) => `seeded fact ${i}`)
        stampFactSegments(home, 3)
        const store = open()
        const all = await store.listFacts('default')
        const later = await store.addFact('default', {content: 'in the journal', tags: []})
        const asked = [all[0]!, all[15]!, all[29]!, later]
        assert.deepEqual(await open().getFacts('default', asked.map((f) => f.id).reverse()), [...asked].reverse())
        // Laid out by an editor: not the shape mem writes, so the segment is read whole.
        const second = segment().path(segmentName(2))
        writeFileSync(`${second}.edit`, JSON.stringify(JSON.parse(readFileSync(second, 'utf8')), null, 2))
        renameSync(`${second}.edit`, second)
        assert.deepEqual(await open().getFacts('default', [all[15]!.id, 'NOPE']), [all[15]])
      })

      it('sees what the mem binary wrote meanwhile', async () => {
        const store = open()
        await store.addFact('default', {content: 'written here', tags: []})
        const seen = await store.changesSince('default')
        const r = mem(home, ['add', '--json', 'written by the command line'])
        assert.equal(r.code, 0, r.stderr)
        const id = (JSON.parse(r.stdout) as {fact_id: string}).fact_id
        const changes = await store.changesSince('default', seen.cursor)
        assert.equal(changes.reset, false)
        assert.deepEqual(
          changes.facts.map((f) => [f.id, f.content]),
          [[id, 'written by the command line']],
        )
      })
    })
  }
})
