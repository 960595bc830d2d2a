import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {mem, tempHome} from '../helpers/mem.js'
import {snapshotTree} from '../helpers/tree.js'

describe('mem CLI (spawned binary, temp MEM_HOME)', () => {
  let home: ReturnType<typeof tempHome>
  let factId: string

  before(() => {
    home = tempHome()
    const added = mem(home.home, [
      'add',
      'Prefers pnpm as package manager',
      '--agent',
      'alice',
      '--tag',
      'tooling',
      '--json',
    ])
    assert.equal(added.code, 0, added.stderr)
    factId = (JSON.parse(added.stdout) as {fact_id: string}).fact_id
  })
  after(() => home.cleanup())

  it('add prints one sentence and exits 0', () => {
    const r = mem(home.home, ['add', 'Deploys', 'on', 'Tuesdays', '--agent', 'alice'])
    assert.equal(r.code, 0)
    assert.match(r.stdout, /^Stored fact [0-9A-Z]{26} for agent alice\.\n$/)
    assert.equal(r.stderr, '')
  })

  it('add reads the fact from stdin when no words are given', () => {
    const r = mem(home.home, ['add', '--agent', 'carol', '--json'], {input: 'Staging is read-only on Fridays\n'})
    assert.equal(r.code, 0, r.stderr)
    const found = JSON.parse(mem(home.home, ['search', 'staging', '--agent', 'carol', '--json']).stdout) as {
      facts: {content: string}[]
    }
    assert.equal(found.facts[0]?.content, 'Staging is read-only on Fridays')
  })

  it('search ranks, filters by tag, and prints the payload under --json', () => {
    const r = mem(home.home, ['search', 'package', 'manager', '--agent', 'alice', '--json'])
    assert.equal(r.code, 0)
    const payload = JSON.parse(r.stdout) as {query: string; facts: {id: string}[]}
    assert.equal(payload.query, 'package manager')
    assert.equal(payload.facts[0]?.id, factId)
    const none = JSON.parse(
      mem(home.home, ['search', 'package', '--tag', 'ops', '--agent', 'alice', '--json']).stdout,
    ) as {count: number}
    assert.equal(none.count, 0)
  })

  it('the agent comes from --agent, else MEM_AGENT, else "default"', () => {
    assert.match(mem(home.home, ['add', 'x1'], {env: {MEM_AGENT: 'envagent'}}).stdout, /agent envagent\./)
    assert.match(
      mem(home.home, ['add', 'x2', '--agent', 'flagagent'], {env: {MEM_AGENT: 'envagent'}}).stdout,
      /agent flagagent\./,
    )
    assert.match(mem(home.home, ['add', 'x3']).stdout, /agent default\./)
  })

  it('save takes state from stdin, --state and --state-file; resume shows the latest', () => {
    assert.equal(mem(home.home, ['save', '--agent', 'dave'], {input: '{"step":1}'}).code, 0)
    assert.equal(mem(home.home, ['save', '--agent', 'dave', '--state', '{"step":2}']).code, 0)
    const file = join(home.home, 'state.json')
    writeFileSync(file, '{"step":3,"todo":["x"]}')
    const saved = mem(home.home, [
      'save',
      '--agent',
      'dave',
      '--state-file',
      file,
      '--messages',
      '[{"role":"user"}]',
      '--json',
    ])
    assert.equal(saved.code, 0, saved.stderr)
    const resumed = JSON.parse(mem(home.home, ['resume', '--agent', 'dave', '--json']).stdout) as {
      id: string
      state: unknown
      message_count: number
    }
    assert.equal(resumed.id, (JSON.parse(saved.stdout) as {checkpoint_id: string}).checkpoint_id)
    assert.deepEqual(resumed.state, {step: 3, todo: ['x']})
    assert.equal(resumed.message_count, 1)
  })

  it('resume without a checkpoint exits 3, or succeeds with --on-missing empty', () => {
    const r = mem(home.home, ['resume', '--agent', 'erin'])
    assert.equal(r.code, 3)
    assert.equal(r.stdout, '')
    // The not-found text stays as it was; the line before it says erin has stored nothing at all.
    assert.match(
      r.stderr,
      /^mem: no agent erin; known agents: [^\n]*\nError: No checkpoint found for agent "erin"\.\n$/,
    )
    const j = mem(home.home, ['resume', '--agent', 'erin', '--json'])
    assert.deepEqual(JSON.parse(j.stdout), {
      error: {code: 'no_checkpoint', message: 'No checkpoint found for agent "erin".'},
    })
    const e = mem(home.home, ['resume', '--agent', 'erin', '--on-missing', 'empty', '--json'])
    assert.equal(e.code, 0)
    assert.deepEqual(JSON.parse(e.stdout), {agent_id: 'erin', found: false})
  })

  it('reflect update and delete; an unknown fact id exits 3', () => {
    const up = mem(home.home, [
      'reflect',
      'update',
      '--agent',
      'alice',
      '--fact',
      factId,
      '--content',
      'Prefers bun',
      '--json',
    ])
    assert.equal(up.code, 0, up.stderr)
    const newId = (JSON.parse(up.stdout) as {fact_id: string}).fact_id
    const again = mem(home.home, ['reflect', 'update', '--agent', 'alice', '--fact', factId, '--content', 'x'])
    assert.equal(again.code, 3)
    assert.match(again.stderr, new RegExp(`was replaced by "${newId}"`))
    assert.equal(mem(home.home, ['reflect', 'delete', '--agent', 'alice', '--fact', newId]).code, 0)
    const missing = mem(home.home, [
      'reflect',
      'delete',
      '--agent',
      'alice',
      '--fact',
      '01ARZ3NDEKTSV4RRFFQ69G5FAV',
      '--json',
    ])
    assert.equal(missing.code, 3)
    assert.equal((JSON.parse(missing.stdout) as {error: {code: string}}).error.code, 'not_found')
  })

  describe('bad input: a clear message, exit 2, and no file changes', () => {
    const cases: [string, string[], string | undefined, RegExp][] = [
      ['missing content', ['add', '--agent', 'alice'], '', /no fact to remember: give its text as words/],
      [
        'state that is not an object',
        ['save', '--agent', 'alice', '--state', '[1,2]'],
        undefined,
        /state: must be a JSON object/,
      ],
      [
        'state that is not JSON',
        ['save', '--agent', 'alice', '--state', '{step: 1}'],
        undefined,
        /--state: it is not valid JSON at line 1, column 2/,
      ],
      ['no state at all', ['save', '--agent', 'alice'], '', /no state given/],
      [
        'an unknown action',
        ['reflect', 'rename', '--agent', 'alice', '--fact', '01ARZ3NDEKTSV4RRFFQ69G5FAV'],
        undefined,
        /action: must be one of add, update, delete, merge/,
      ],
      ['limit 0', ['search', 'x', '--limit', '0', '--agent', 'alice'], undefined, /limit: must be between 1 and 100/],
      ['a hostile agent id', ['add', 'x', '--agent', '../../etc'], undefined, /--agent: may use letters/],
      [
        'a malformed fact id',
        ['reflect', 'delete', '--fact', '../x', '--agent', 'alice'],
        undefined,
        /--fact: must be a 26-character fact id/,
      ],
      ['an unknown flag', ['search', 'x', '--lmit', '3'], undefined, /Nonexistent flag: --lmit/],
      ['an unknown flag on a strict command', ['resume', '--agnt', 'x'], undefined, /Nonexistent flag: --agnt/],
    ]
    for (const [what, args, input, message] of cases) {
      it(what, () => {
        const before = snapshotTree(home.home)
        const r = mem(home.home, args, {input})
        assert.equal(r.code, 2, `exit code for ${what}: ${r.stderr}`)
        assert.match(r.stderr, message)
        assert.equal(r.stdout, '')
        assert.deepEqual(snapshotTree(home.home), before)
        const j = mem(home.home, [...args, '--json'], {input})
        assert.equal((JSON.parse(j.stdout) as {error: {code: string}}).error.code, 'invalid_input')
      })
    }
  })
})
