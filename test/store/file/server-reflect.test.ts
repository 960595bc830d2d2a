import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {connectMcp, type McpSession} from '../../helpers/mcp.js'
import {openedIn, openLogEnv, openLogLines} from '../../helpers/open-log.js'
import {mem, tempHome} from '../../helpers/mem.js'
import {stampFactSegments, writeFactSegments} from '../../helpers/segments.js'
import {agentDir} from '../../../src/store/file/paths.js'
import {segmentName} from '../../../src/store/file/segments.js'

/**
 * A server that searches by the saved index holds only the last fact segment; a reflect that
 * marks facts in older ones reads those segments alone, under the lock, and lets go of them.
 * These tests hold it to what the files say: the marks land, searches follow them, and a fact
 * another process marked meanwhile is refused as it would be by a server holding every fact.
 */

interface Found {
  facts: {id: string; content: string}[]
}

function ok(home: string, args: string[]): string {
  const r = mem(home, args)
  assert.equal(r.code, 0, r.stderr)
  return r.stdout
}

async function call(session: McpSession, name: string, args: Record<string, unknown>) {
  const r = await session.call(name, args)
  assert.notEqual(r.isError, true, JSON.stringify(r.content))
  return r.structuredContent as Record<string, unknown>
}

async function search(session: McpSession, query: string): Promise<Found['facts']> {
  return ((await call(session, 'memory_search', {query, limit: 100})) as unknown as Found).facts
}

describe("a warm server's reflect", function () {
  this.timeout(60_000)
  let home: string
  let cleanup: () => void
  let session: McpSession | undefined

  beforeEach(() => {
    ;({home, cleanup} = tempHome())
    writeFactSegments(home, 40, 10, (i) => (i === 15 ? 'the barn owl hunts at night' : `the otter number ${i} swims`))
    stampFactSegments(home, 4)
    ok(home, ['search', '--json', 'otter'])
  })

  afterEach(async () => {
    await session?.close()
    session = undefined
    cleanup()
  })

  it('updates and deletes a fact of an older segment reading that segment and the last one only', async () => {
    const log = join(home, 'events.log')
    session = await connectMcp(home, {env: openLogEnv(log)})
    const [owl] = await search(session, 'owl')
    assert.equal(owl?.content, 'the barn owl hunts at night')
    writeFileSync(log, '')
    const updated = await call(session, 'memory_reflect', {
      action: 'update',
      fact_id: owl!.id,
      content: 'the barn owl hunts at dusk',
    })
    const opened = openedIn(openLogLines(log), join(agentDir(home, 'default'), 'facts'))
    assert.deepEqual(opened.sort(), [segmentName(2), segmentName(4)])

    assert.deepEqual(
      (await search(session, 'owl')).map((f) => f.content),
      ['the barn owl hunts at dusk'],
    )
    assert.deepEqual(await search(session, 'night'), [])
    const replaced = JSON.parse(ok(home, ['list', '--json', '--all', '-n', '100'])) as {
      facts: {id: string; superseded_by?: string}[]
    }
    assert.equal(replaced.facts.find((f) => f.id === owl!.id)?.superseded_by, updated.fact_id)

    // The old id again: refused the way a server holding every fact refuses it, naming its replacement.
    const again = await session.call('memory_reflect', {action: 'update', fact_id: owl!.id, content: 'an owl'})
    assert.equal(again.isError, true)
    assert.match(JSON.stringify(again.content), new RegExp(`replaced by .*${String(updated.fact_id)}`))

    const [otter] = await search(session, 'otter number 3')
    assert.equal(otter?.content, 'the otter number 3 swims')
    await call(session, 'memory_reflect', {action: 'delete', fact_id: otter!.id})
    assert.ok(!(await search(session, 'otter')).some((f) => f.id === otter!.id))
    assert.equal((JSON.parse(ok(home, ['list', '--json', '-n', '100'])) as Found).facts.length, 39)
    assert.equal(mem(home, ['doctor', '--json']).code, 0)
  })

  it('refuses a fact another process deleted after the server last searched, saying so', async () => {
    session = await connectMcp(home)
    const [owl] = await search(session, 'owl')
    ok(home, ['reflect', 'delete', '--json', '-f', owl!.id])
    // A delete goes straight to the mark; an update first reads the fact for its tags and thread.
    for (const args of [{action: 'delete'}, {action: 'update', content: 'the owl sleeps'}]) {
      const r = await session.call('memory_reflect', {...args, fact_id: owl!.id})
      assert.equal(r.isError, true, args.action)
      assert.match(JSON.stringify(r.content), /was deleted/)
    }
    assert.deepEqual(await search(session, 'sleeps'), [])
    assert.equal((JSON.parse(ok(home, ['list', '--json', '-n', '100'])) as Found).facts.length, 39)
  })
})
