import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {mem, tempHome} from '../helpers/mem.js'
import {json, ok, snapshot} from './helpers.js'

/** Files in the shape ChatGPT's and Claude's data exports write conversations.json in. */
const CHATGPT = join(import.meta.dirname, 'fixtures', 'chatgpt-conversations.json')
const CLAUDE = join(import.meta.dirname, 'fixtures', 'claude-conversations.json')

interface Fact {
  id: string
  content: string
  thread?: string
  created_at: string
  context_for?: string
}

const facts = (home: string): Fact[] =>
  json<{facts: Fact[]}>(ok(home, ['list', '--json', '--limit', '100'])).facts.sort((a, b) =>
    a.created_at < b.created_at ? -1 : 1,
  )

describe("mem import of ChatGPT's and Claude's conversation exports (built mem)", () => {
  let h: ReturnType<typeof tempHome>
  beforeEach(() => {
    h = tempHome()
  })
  afterEach(() => h.cleanup())

  it('reads the conversation ChatGPT shows: one thread per conversation, user and assistant turns at their times', () => {
    const report = json<{formats: string[]; added: {facts: number}}>(ok(h.home, ['import', CHATGPT, '--json']))
    assert.deepEqual(report.formats, ['chatgpt'])
    // Only the branch ending at current_node: the replaced answer, the system prompt and the
    // tool's output are left out; an assistant message's parts are one turn.
    assert.deepEqual(
      facts(h.home).map((f) => [f.content, f.thread, f.created_at]),
      [
        [
          'user: Which VPN client should the team install?',
          'chatgpt-6a1f0c2e-5b7d-4e8a-9c3b-2d4e6f8a0b1c',
          '2024-05-01T10:00:00.500Z',
        ],
        [
          'assistant: Install the WireGuard client.\nOmar hands out the peer configs.',
          'chatgpt-6a1f0c2e-5b7d-4e8a-9c3b-2d4e6f8a0b1c',
          '2024-05-01T10:00:10.250Z',
        ],
        ['user: Thanks, that settles it', 'chatgpt-6a1f0c2e-5b7d-4e8a-9c3b-2d4e6f8a0b1c', '2024-05-01T10:01:40.000Z'],
        [
          'user: Where is the team lunch on Wednesday?',
          'chatgpt-0b9e7d5c-3a1f-4c2e-8d6b-4f2a0c8e6d4b',
          '2024-05-02T10:00:00.000Z',
        ],
        [
          'assistant: At the noodle place by the station.',
          'chatgpt-0b9e7d5c-3a1f-4c2e-8d6b-4f2a0c8e6d4b',
          '2024-05-02T10:00:03.000Z',
        ],
      ],
    )
    assert.equal(report.added.facts, 5)
    // Turns of one conversation are context for each other, never across conversations.
    const hits = json<{facts: Fact[]}>(ok(h.home, ['search', 'vpn', '--json'])).facts
    assert.deepEqual(
      hits.map((f) => [f.content.split(':')[0], f.context_for === undefined ? 'match' : 'context']),
      [
        ['assistant', 'context'],
        ['user', 'match'],
        ['user', 'context'],
      ],
    )
    // Importing the same export again adds nothing.
    assert.equal(json<{added: {facts: number}}>(ok(h.home, ['import', CHATGPT, '--json'])).added.facts, 0)
  })

  it("reads Claude's export: human and assistant messages, text blocks when text is empty, tool use left out", () => {
    const report = json<{formats: string[]; added: {facts: number}}>(
      ok(h.home, ['import', CLAUDE, '--json', '--agent', 'work']),
    )
    assert.deepEqual(report.formats, ['claude'])
    assert.equal(report.added.facts, 3)
    const thread = 'claude-3f2a9c1e-7b4d-4a6e-9f1c-5d8b2e7a4c60'
    assert.deepEqual(
      json<{facts: Fact[]}>(ok(h.home, ['list', '--json', '--agent', 'work']))
        .facts.sort((a, b) => (a.created_at < b.created_at ? -1 : 1))
        .map((f) => [f.content, f.thread, f.created_at]),
      [
        ['user: Can I run the migration on staging on a Friday?', thread, '2024-06-03T09:00:00.000Z'],
        [
          'assistant: No: staging is read-only on Fridays.\nRun it on Thursday instead.',
          thread,
          '2024-06-03T09:00:04.000Z',
        ],
        ['user: Got it', thread, '2024-06-03T09:01:00.000Z'],
      ],
    )
  })

  it('splits a message longer than a fact may be into turns of the same speaker and time, losing nothing', () => {
    const export_ = JSON.parse(readFileSync(CLAUDE, 'utf8')) as {chat_messages: {text: string}[]}[]
    const long = Array.from({length: 4000}, (_, i) => `word${i}`).join(' ')
    export_[0]!.chat_messages[0]!.text = long
    const file = join(h.home, 'conversations.json')
    writeFileSync(file, JSON.stringify(export_))
    ok(h.home, ['import', file])
    const parts = facts(h.home).filter((f) => f.created_at === '2024-06-03T09:00:00.000Z')
    assert.ok(parts.length >= 2)
    assert.ok(parts.every((f) => f.content.startsWith('user: ') && f.content.length <= 16_000))
    const words = parts.flatMap((f) => f.content.slice('user: '.length).split(' '))
    assert.deepEqual(words.sort(), long.split(' ').sort())
  })

  it('refuses a JSON array in neither shape, or a conversation without its id, and stores nothing', () => {
    ok(h.home, ['add', 'something already stored'])
    const before = snapshot(h.home)
    const files = tempHome()
    try {
      refusals(join(files.home, 'conversations.json'))
    } finally {
      files.cleanup()
    }
    assert.deepEqual(snapshot(h.home), before)
  })

  function refusals(file: string): void {
    writeFileSync(file, JSON.stringify([{title: 'x', messages: []}]))
    const neither = mem(h.home, ['import', file])
    assert.equal(neither.code, 2)
    assert.match(neither.stderr, /line 1: a JSON array is read as ChatGPT's or Claude's conversations\.json/)
    writeFileSync(file, JSON.stringify([{name: 'x', chat_messages: []}]))
    const noId = mem(h.home, ['import', file])
    assert.equal(noId.code, 2)
    assert.match(noId.stderr, /line 1: conversation 1: must have a "uuid"/)
    writeFileSync(file, '[{"mapping": {}')
    const broken = mem(h.home, ['import', file])
    assert.equal(broken.code, 2)
    assert.match(broken.stderr, /line 1: the file is a JSON array but not valid JSON/)
  }
})
