import assert from 'node:assert/strict'

import {mem, tempHome} from '../helpers/mem.js'
import {json, lines, ok, snapshot} from './helpers.js'

/** Lines as @modelcontextprotocol/server-memory writes them to memory.jsonl. */
const MEMORY_JSONL = [
  {
    type: 'entity',
    name: 'John_Smith',
    entityType: 'person',
    observations: ['Speaks fluent Spanish', 'Graduated in 2019'],
  },
  {type: 'entity', name: 'Anthropic', entityType: 'organization', observations: []},
  {type: 'entity', name: 'mem', entityType: 'software project', observations: ['Stores facts in JSON files']},
  {type: 'relation', from: 'John_Smith', to: 'Anthropic', relationType: 'works_at'},
]
  .map((l) => JSON.stringify(l))
  .join('\n')

describe('mem import of the MCP memory server file', () => {
  let h: ReturnType<typeof tempHome>
  beforeEach(() => {
    h = tempHome()
  })
  afterEach(() => h.cleanup())

  it('turns observations, bare entities and relations into tagged facts', () => {
    const report = json(ok(h.home, ['import', '-', '--json'], {input: MEMORY_JSONL, env: {MEM_AGENT: 'claude'}}))
    assert.deepEqual(report.formats, ['mcp-memory'])
    assert.deepEqual(report.added, {facts: 5, checkpoints: 0})
    const facts = lines(ok(h.home, ['export', '--agent', 'claude']).stdout).slice(1)
    assert.deepEqual(
      facts.map((f) => [f.content, f.tags]),
      [
        ['John_Smith: Speaks fluent Spanish', ['person']],
        ['John_Smith: Graduated in 2019', ['person']],
        ['Anthropic: organization', ['organization']],
        ['mem: Stores facts in JSON files', ['software-project']],
        ['John_Smith works at Anthropic', ['relation']],
      ],
    )
    for (const f of facts) assert.match(String(f.id), /^[0-9A-HJKMNP-TV-Z]{26}$/)
    const found = json<{facts: {content: string}[]}>(
      ok(h.home, ['search', 'Spanish', '--tag', 'person', '--agent', 'claude', '--json']),
    )
    assert.equal(found.facts[0]?.content, 'John_Smith: Speaks fluent Spanish')
  })

  it('a second import of the same file adds nothing: same text and tags is the same fact', () => {
    ok(h.home, ['import', '-', '--agent', 'claude'], {input: MEMORY_JSONL})
    const before = snapshot(h.home)
    const again = json<{added: unknown; skipped: {line: number}[]}>(
      ok(h.home, ['import', '-', '--agent', 'claude', '--json'], {input: MEMORY_JSONL}),
    )
    assert.deepEqual(again.added, {facts: 0, checkpoints: 0})
    assert.deepEqual(
      again.skipped.map((s) => s.line),
      [1, 1, 2, 3, 4],
    )
    assert.deepEqual(snapshot(h.home), before)
  })

  it('goes to the default agent when none is given', () => {
    ok(h.home, ['import', '-'], {input: MEMORY_JSONL})
    const out = lines(ok(h.home, ['export', '--all']).stdout).slice(1)
    assert.equal(out.length, 5)
    assert.deepEqual([...new Set(out.map((l) => l.agent_id))], ['default'])
  })

  it('rejects malformed graph lines by number and writes nothing', () => {
    const input = [
      MEMORY_JSONL,
      JSON.stringify({type: 'entity', name: 'Broken', entityType: 'person', observations: 'not a list'}),
      JSON.stringify({type: 'relation', from: 'A', to: '', relationType: 'knows'}),
      JSON.stringify({type: 'entity', name: 'Long', entityType: 'x'.repeat(65), observations: ['y']}),
    ].join('\n')
    const r = mem(h.home, ['import', '-'], {input})
    assert.equal(r.code, 2)
    assert.match(r.stderr, /line 5: entity: observations must be an array, not a string\n/)
    assert.match(r.stderr, /line 6: relation: to: must not be empty/)
    assert.match(r.stderr, /line 7: entityType "x+" as a tag: a tag must be at most 64 characters/)
    assert.deepEqual(snapshot(h.home), {})
  })
})
