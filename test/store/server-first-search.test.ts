import assert from 'node:assert/strict'
import {readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {connectMcp, type McpSession} from '../helpers/mcp.js'
import {mem, tempHome} from '../helpers/mem.js'
import {FACT_SEGMENT} from '../../src/store/collections.js'
import {newId} from '../../src/store/ids.js'
import {agentDir} from '../../src/store/paths.js'
import type {FactRecord} from '../../src/store/records.js'
import {readRevision, revisionKey} from '../../src/store/revision.js'
import {searchCachePath} from '../../src/store/search-cache.js'
import {SegmentedFiles} from '../../src/store/segments.js'

/**
 * A server's first searches go by the saved index and the segment keys, as a cold search does,
 * instead of reading every segment; these tests hold it to the same guarantees: no stale text,
 * other processes' writes seen, and an import that leaves a current index behind.
 */

interface Found {
  count: number
  facts: {id: string; content: string}[]
}

async function serverSearch(session: McpSession, query: string): Promise<string[]> {
  const r = await session.call('memory_search', {query, limit: 100})
  assert.notEqual(r.isError, true, JSON.stringify(r.content))
  return (r.structuredContent as unknown as Found).facts.map((f) => f.content).sort()
}

function ok(home: string, args: string[], input?: string): string {
  const r = mem(home, args, input === undefined ? {} : {input})
  assert.equal(r.code, 0, r.stderr)
  return r.stdout
}

/** The saved index's header: which segments it was made from, under which keys. */
function savedSegments(home: string): {name: string; key: string}[] {
  const file = readFileSync(searchCachePath(agentDir(home, 'default')))
  const header = JSON.parse(file.toString('utf8', 0, file.indexOf(10))) as {segments: {name: string; key: string}[]}
  return header.segments
}

/** Every fact segment with the key a reader computes for it now (revision counter and file identity). */
function currentSegments(home: string): {name: string; key: string}[] {
  const dir = agentDir(home, 'default')
  const files = new SegmentedFiles<FactRecord>(dir, FACT_SEGMENT)
  const revision = readRevision(dir)
  return files
    .names()
    .map((name) => ({name, key: `${revisionKey(revision, `facts/${name}`) ?? '-'}|${files.fingerprint(name)}`}))
}

/** A mem.export file of `count` facts for agent "default". */
function exportFile(home: string, count: number): string {
  const lines = [JSON.stringify({type: 'header', format: 'mem.export', version: 1})]
  let time = Date.UTC(2025, 0, 1)
  for (let i = 0; i < count; i++) {
    time += 60_000
    lines.push(
      JSON.stringify({
        type: 'fact',
        agent_id: 'default',
        id: newId(time),
        content: `imported fact number ${i} about the ${i % 7 === 0 ? 'lighthouse' : 'harbour'}`,
        tags: [],
        created_at: new Date(time).toISOString(),
      }),
    )
  }
  const file = join(home, 'export.jsonl')
  writeFileSync(file, `${lines.join('\n')}\n`)
  return file
}

describe("a server's first search, from the saved index", function () {
  this.timeout(60_000)
  let home: string
  let cleanup: () => void
  let session: McpSession | undefined

  beforeEach(() => {
    ;({home, cleanup} = tempHome())
  })

  afterEach(async () => {
    await session?.close()
    session = undefined
    cleanup()
  })

  it('mem import leaves a saved index that is current, and the first search is served from it', async () => {
    const file = exportFile(home, 2500)
    ok(home, ['import', '--json', file])
    const index = searchCachePath(agentDir(home, 'default'))
    statSync(index)
    assert.deepEqual(savedSegments(home), currentSegments(home), 'the index vouches for every segment as it is')
    const before = readFileSync(index)

    session = await connectMcp(home)
    const found = await serverSearch(session, 'lighthouse')
    assert.equal(found.length, 100)
    assert.ok(found.every((c) => c.includes('lighthouse')))
    assert.deepEqual(readFileSync(index), before, 'nothing had to be indexed again: the index was not saved anew')
  })
})
