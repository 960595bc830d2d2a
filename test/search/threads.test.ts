import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {connectMcp} from '../helpers/mcp.js'
import {mem, tempHome} from '../helpers/mem.js'
import {validateAgainst} from '../helpers/schema.js'

interface Hit {
  id: string
  content: string
  thread?: string
  context_for?: string
}

function json<T>(home: string, args: string[]): T {
  const r = mem(home, [...args, '--json'])
  assert.equal(r.code, 0, r.stderr)
  return JSON.parse(r.stdout) as T
}

const add = (home: string, content: string, ...flags: string[]): string =>
  json<{fact_id: string}>(home, ['add', content, ...flags]).fact_id
const search = (home: string, query: string): Hit[] => json<{facts: Hit[]}>(home, ['search', query]).facts

describe('threads: context only within a declared conversation (spawned mem, real MCP client)', () => {
  let home: string
  let cleanup: () => void

  beforeEach(() => {
    ;({home, cleanup} = tempHome())
  })
  afterEach(() => cleanup())

  it("the README's example returns only the fact that matches", () => {
    add(home, 'Prefers pnpm as package manager', '--tag', 'tooling')
    add(home, 'The staging database is read-only on Fridays', '--tag', 'ops')
    add(home, 'Deploys go out on Tuesdays and Thursdays', '--tag', 'ops')
    add(home, 'Uses Postgres 16 with logical replication', '--tag', 'infra')
    add(home, "Alice's team owns the billing service", '--tag', 'people')
    for (const query of ['package manager', 'pnpm']) {
      assert.deepEqual(
        search(home, query).map((h) => h.content),
        ['Prefers pnpm as package manager'],
        query,
      )
    }
  })

  it('a match brings the turns around it in its thread, each marked as context in JSON and prose', () => {
    const question = add(home, 'which heater did the landlord install?', '--thread', 'flat-chat')
    const reply = add(home, 'a Dimplex panel, in the hallway', '--thread', 'flat-chat')
    add(home, 'the bins go out on Monday')
    const hits = search(home, 'heater')
    assert.deepEqual(
      hits.map((h) => [h.id, h.thread, h.context_for]),
      [
        [reply, 'flat-chat', question],
        [question, 'flat-chat', undefined],
      ],
    )
    const prose = mem(home, ['search', 'heater']).stdout
    assert.equal(
      prose,
      [
        `Found 2 facts for "heater" (agent default):`,
        `1. a Dimplex panel, in the hallway (id ${reply}; context for ${question})`,
        `2. which heater did the landlord install? (id ${question})`,
        '',
      ].join('\n'),
    )
  })

  it('shows the thread in list and history, keeps it across update, and merge keeps only a shared one', () => {
    const a = add(home, 'we agreed to ship on Friday', '--thread', 'standup-12')
    const b = add(home, 'Ana owns the release notes', '--thread', 'standup-12')
    const c = add(home, 'the office closes at six')
    assert.match(
      mem(home, ['list']).stdout,
      new RegExp(`we agreed to ship on Friday \\(id ${a}, saved \\S+, thread standup-12\\)`),
    )
    assert.match(mem(home, ['list']).stdout, new RegExp(`the office closes at six \\(id ${c}, saved \\S+\\)\\n`))
    assert.match(mem(home, ['history', a]).stdout, /\n {3}thread standup-12\n/)

    const updated = json<{fact_id: string}>(home, [
      'reflect',
      'update',
      '--fact',
      a,
      '--content',
      'we agreed to ship on Monday',
    ]).fact_id
    const threadOf = (id: string) =>
      json<{versions: {id: string; thread?: string}[]}>(home, ['history', id]).versions.find((v) => v.id === id)?.thread
    assert.equal(threadOf(updated), 'standup-12')
    const moved = json<{fact_id: string}>(home, [
      'reflect',
      'update',
      '--fact',
      b,
      '--content',
      'Ana owns the changelog',
      '--thread',
      'retro-3',
    ]).fact_id
    assert.equal(threadOf(moved), 'retro-3')
    const same = add(home, 'Bo runs the demo', '--thread', 'retro-3')
    const merged = json<{fact_id: string}>(home, [
      'reflect',
      'merge',
      '--fact',
      moved,
      '--fact',
      same,
      '--content',
      'Ana and Bo share the release',
    ]).fact_id
    assert.equal(threadOf(merged), 'retro-3')
    const mixed = json<{fact_id: string}>(home, [
      'reflect',
      'merge',
      '--fact',
      merged,
      '--fact',
      c,
      '--content',
      'release work and office hours',
    ]).fact_id
    assert.equal(threadOf(mixed), undefined)
  })

  it('refuses a thread id that is not a short plain id, and stores nothing', () => {
    for (const bad of ['has space', '', '-leading-dash', 'x'.repeat(65), 'tab\there', '\u001b[31mred']) {
      const r = mem(home, ['add', 'a fact', '--thread', bad])
      assert.equal(r.code, 2, bad)
      assert.match(r.stderr, /thread: (must not be empty|may use letters, digits|must be at most 64 characters)/, bad)
      const reflected = mem(home, ['reflect', 'add', '--content', 'a fact', '--thread', bad])
      assert.equal(reflected.code, 2, bad)
    }
    assert.equal(json<{count: number}>(home, ['list']).count, 0)
  })

  it('export and import carry the thread; a transcript imported out of order links like one saved live', () => {
    const turns = ['what camera did you buy?', 'a Fuji X100 in silver', 'nice, and the lens?', 'the standard 23mm']
    const live = turns.map((t) => add(home, t, '--thread', 'cam'))
    const exported = mem(home, ['export'])
    assert.equal(exported.code, 0, exported.stderr)
    const lines = exported.stdout.trim().split('\n')
    assert.ok(lines.slice(1).every((l) => (JSON.parse(l) as {thread?: string}).thread === 'cam'))

    const other = tempHome()
    try {
      // The same file with its fact lines reversed: order in the file does not decide the thread's order.
      const file = join(other.home, 'cam.jsonl')
      writeFileSync(file, [lines[0], ...lines.slice(1).reverse()].join('\n') + '\n')
      const imported = mem(other.home, ['import', file])
      assert.equal(imported.code, 0, imported.stderr)
      const there = json<{facts: Hit[]}>(other.home, ['search', 'camera']).facts
      assert.deepEqual(there, search(home, 'camera'))
      assert.deepEqual(
        there.map((h) => [h.id, h.context_for]),
        [
          [live[1], live[0]],
          [live[0], undefined],
          [live[2], live[0]],
        ],
      )
      writeFileSync(file, readFileSync(file, 'utf8').replace('"thread":"cam"', '"thread":"not ok"'))
      const refused = mem(other.home, ['import', file, '--agent', 'fresh'])
      assert.equal(refused.code, 2)
      assert.match(refused.stderr, /line 2: fact: thread: may use letters/)
      assert.equal(json<{count: number}>(other.home, ['list', '--agent', 'fresh']).count, 0)
    } finally {
      other.cleanup()
    }
  })

  it("imports a transcript of turns as facts of their conversation's thread, once, and refuses a bad turn", () => {
    const turn = (conversation: string, speaker: string, text: string, time: string) =>
      JSON.stringify({type: 'turn', conversation, speaker, text, time})
    const file = join(home, 'chat.jsonl')
    // Out of order in the file, one time with an offset: the thread follows the times.
    writeFileSync(
      file,
      [
        turn('chat-1', 'assistant', 'Use the WireGuard client; Omar has the config.', '2024-05-01T12:00:05+02:00'),
        turn('chat-1', 'user', 'Which VPN should I install?', '2024-05-01T10:00:00Z'),
        turn('chat-1', 'user', 'thanks', '2024-05-01T10:01:00Z'),
        turn('chat-2', 'user', 'thanks', '2024-05-02T09:00:00Z'),
      ].join('\n') + '\n',
    )
    const first = mem(home, ['import', file])
    assert.equal(first.code, 0, first.stderr)
    assert.match(first.stdout, /Imported 4 facts/)
    const again = mem(home, ['import', file])
    assert.match(again.stdout, /Imported 0 facts/)
    const hits = search(home, 'vpn')
    assert.deepEqual(
      hits.map((h) => [h.content, h.thread, h.context_for === undefined ? 'match' : 'context']),
      [
        ['assistant: Use the WireGuard client; Omar has the config.', 'chat-1', 'context'],
        ['user: Which VPN should I install?', 'chat-1', 'match'],
        ['user: thanks', 'chat-1', 'context'],
      ],
    )
    const listed = json<{facts: {content: string; created_at: string}[]}>(home, ['list']).facts
    assert.equal(listed.find((f) => f.content.startsWith('assistant'))?.created_at, '2024-05-01T10:00:05.000Z')
    writeFileSync(file, turn('chat 3', 'user', 'hi', '2024-05-01T10:00:00') + '\n')
    const bad = mem(home, ['import', file, '--agent', 'other'])
    assert.equal(bad.code, 2)
    assert.match(
      bad.stderr,
      /line 1: turn: conversation: may use letters.*; time: must be an ISO 8601 time with a zone/,
    )
  })

  it('over MCP: memory_add and memory_reflect take a thread; memory_search marks context, valid against the advertised schema', async () => {
    const session = await connectMcp(home)
    try {
      const first = await session.call('memory_add', {content: 'Do we still use the old VPN?', thread: 'it-help'})
      assert.notEqual(first.isError, true, JSON.stringify(first.content))
      const reply = await session.call('memory_reflect', {
        action: 'add',
        content: 'No, everyone moved to the new gateway in May',
        thread: 'it-help',
      })
      assert.notEqual(reply.isError, true, JSON.stringify(reply.content))
      await session.call('memory_add', {content: 'The printer on floor two is broken'})
      const bad = await session.call('memory_add', {content: 'x', thread: 'not ok'})
      assert.equal(bad.isError, true)

      const found = await session.call('memory_search', {query: 'VPN'})
      const payload = found.structuredContent as {facts: Hit[]}
      const schema = session.tools.find((t) => t.name === 'memory_search')!.outputSchema!
      assert.equal(validateAgainst(schema, payload), undefined)
      assert.deepEqual(
        payload.facts.map((f) => [f.content, f.context_for === undefined ? 'match' : 'context']),
        [
          ['No, everyone moved to the new gateway in May', 'context'],
          ['Do we still use the old VPN?', 'match'],
        ],
      )
      const text = (found.content as {type: string; text: string}[])[0]!.text
      assert.match(
        text,
        /1\. No, everyone moved to the new gateway in May \(id \w{26}; context for \w{26}\)\n2\. Do we still use the old VPN\? \(id \w{26}\)$/,
      )
    } finally {
      await session.close()
    }
  })
})
