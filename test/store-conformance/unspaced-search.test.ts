import assert from 'node:assert/strict'
import {existsSync, rmSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {FileStore} from '../../src/store/file/file-store.js'
import {newId} from '../../src/store/ids.js'
import {agentDir} from '../../src/store/file/paths.js'
import {PostgresStore} from '../../src/store/postgres/postgres-store.js'
import type {FactRecord} from '../../src/store/records.js'
import {searchIndexPath} from '../../src/store/file/index-keeper.js'
import {connectMcp, type McpSession} from '../helpers/mcp.js'
import {mem, tempHome} from '../helpers/mem.js'
import {freshDatabase, sql} from '../helpers/postgres.js'
import {STORES, useStore} from '../helpers/stores.js'

/** Facts in Japanese, Chinese, Korean and Thai, each with the query a person would type for it. */
const FACTS: [string, string[]][] = [
  ['東京のオフィスは3階にあります', ['東京', 'オフィス', '3階']],
  ['東京タワーの近くでランチを食べました', ['ランチ', 'タワー']],
  ['我们的数据库在上海的机房', ['数据库', '上海', '机房']],
  ['会议室在三楼，每周一开会', ['会议室', '楼']],
  ['서울 사무실은 3층에 있습니다', ['서울', '사무실은']],
  ['ร้านกาแฟอยู่ชั้นสามของตึก', ['กาแฟ', 'ร้านกาแฟ']],
  ['ประชุมทีมทุกวันจันทร์', ['ประชุม', 'วันจันทร์']],
]

/** Enough plain facts that both stores save the index (PostgreSQL from 1,000 facts), so a cold search loads it. */
const FILLER = 1200

interface Found {
  count: number
  facts: {content: string; score: number}[]
}

for (const store of STORES) {
  describe(`search in scripts written without spaces (${store.name}, MCP and the CLI)`, function () {
    useStore(store)
    this.timeout(120_000)
    let home: string
    let cleanup: () => void
    let session: McpSession

    before(async () => {
      ;({home, cleanup} = tempHome())
      const header = {
        type: 'header',
        format: 'mem.export',
        version: 1,
        exported_at: '2026-01-01T00:00:00Z',
        mem_version: '0.1.0',
      }
      const lines = Array.from({length: FILLER}, (_, i) => ({
        type: 'fact',
        agent_id: 'default',
        id: `01JDQ3N7X2C9V5K8M4T${String(i).padStart(7, '0')}`,
        content: `Deploy note ${i}: the staging cluster was patched and the coffee machine descaled`,
        tags: [],
        created_at: new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(),
      }))
      const file = join(home, 'filler.jsonl')
      writeFileSync(file, [header, ...lines].map((line) => JSON.stringify(line)).join('\n') + '\n')
      const imported = mem(home, ['import', file])
      assert.equal(imported.code, 0, imported.stderr)
      session = await connectMcp(home)
      for (const [content] of FACTS) {
        const r = await session.call('memory_add', {content})
        assert.notEqual(r.isError, true)
      }
    })
    after(async () => {
      await session?.close()
      cleanup()
    })

    it('memory_search finds each fact by the words a person types, first', async () => {
      const missed: string[] = []
      for (const [content, queries] of FACTS)
        for (const query of queries) {
          const r = await session.call('memory_search', {query, limit: 5})
          assert.notEqual(r.isError, true)
          const top = (r.structuredContent as unknown as Found).facts[0]
          if (top?.content !== content) missed.push(`${query} → ${top?.content}`)
        }
      assert.deepEqual(missed, [])
    })

    it('memory_search finds 東京 in both facts, 東京タワー included, and nothing Latin', async () => {
      const r = await session.call('memory_search', {query: '東京', limit: 10})
      const found = (r.structuredContent as unknown as Found).facts.map((f) => f.content).sort()
      assert.deepEqual(found, [FACTS[0]![0], FACTS[1]![0]].sort())
    })

    it('mem search finds them from the saved index as from a fresh one, with the same scores', async () => {
      const search = (query: string) => {
        const r = mem(home, ['search', query, '--json'])
        assert.equal(r.code, 0, r.stderr)
        return JSON.parse(r.stdout) as Found
      }
      const url = process.env.MEM_STORE
      const saved = async () =>
        url === undefined
          ? existsSync(searchIndexPath(agentDir(home, 'default')))
          : (await sql<{n: number}>(url, 'SELECT count(*)::int AS n FROM mem_search_index'))[0]!.n === 1
      const forget = async () => {
        if (url === undefined) rmSync(searchIndexPath(agentDir(home, 'default')), {force: true})
        else await sql(url, 'DELETE FROM mem_search_index')
      }
      const queries = ['数据库', '東京', 'ランチ', '楼', 'กาแฟ', 'ประชุม', '서울', 'coffee machine']
      // The index is saved from 1,000 facts on: by the file store's import already, else by the
      // first cold search; the next ones load it, and catch up with any facts added since.
      search('staging')
      assert.ok(await saved())
      const loaded = queries.map(search)
      for (const [i, query] of queries.entries()) {
        await forget()
        assert.deepEqual(search(query), loaded[i], query)
      }
      assert.equal(loaded[0]!.facts[0]?.content, FACTS[2]![0])
      assert.equal(loaded[4]!.facts[0]?.content, FACTS[5]![0])
      assert.ok(loaded[7]!.count > 0 && loaded[7]!.facts.every((f) => f.content.includes('coffee machine')))
      assert.match(mem(home, ['search', '東京']).stdout, /東京のオフィスは3階にあります/)
    })
  })
}

/** Phrases of each script, put together at random, so that pairs and words repeat across facts. */
const PHRASES = [
  '東京のオフィス',
  '東京タワー',
  '京都の工場',
  'ランチを食べました',
  '数据库迁移',
  '上海的机房',
  '会议室在三楼',
  '咖啡',
  'ร้านกาแฟ',
  'ประชุมทีม',
  '서울 사무실은',
  'deploy friday',
  'coffee grinder',
]

describe('PostgreSQL ranks text in scripts written without spaces exactly as the files', function () {
  this.timeout(120_000)

  it('the same facts and scores for every query', async () => {
    let seed = 33
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31
    const pick = () => PHRASES[Math.floor(next() * PHRASES.length)]!
    const start = Date.parse('2025-01-01T00:00:00.000Z')
    const facts: FactRecord[] = Array.from({length: 300}, (_, i) => ({
      id: newId(start + i * 60_000),
      content: Array.from({length: 1 + Math.floor(next() * 4)}, pick).join(next() < 0.5 ? '' : '、'),
      tags: [],
      created_at: new Date(start + i * 60_000).toISOString(),
    }))
    const {home, cleanup} = tempHome()
    const files = new FileStore(home)
    const db = await PostgresStore.open(await freshDatabase())
    try {
      for (const store of [files, db]) await store.importRecords('alice', {facts, checkpoints: []})
      for (const text of [
        '東京',
        '京都',
        '数据库',
        '楼',
        'ランチ',
        'กาแฟ',
        '사무실',
        'coffee',
        '東京 coffee',
        '咖啡 ร้านกาแฟ',
      ]) {
        const want = (await files.searchFacts('alice', {text, limit: 20})).hits
        assert.ok(want.length > 0, text)
        assert.deepEqual((await db.searchFacts('alice', {text, limit: 20})).hits, want, text)
      }
    } finally {
      await db.close()
      cleanup()
    }
  })
})
