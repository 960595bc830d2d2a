import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {mem, tempHome} from '../helpers/mem.js'

/** The nightly-backup recipe must survive one damaged agent: the rest is listed and exported, the damaged one named. */
describe('one damaged agent never blocks the all-agents commands', () => {
  let home: ReturnType<typeof tempHome>
  before(() => {
    home = tempHome()
    for (const [agent, text] of [
      ['alice', 'Prefers pnpm'],
      ['bob', 'Likes tea'],
      ['team', 'Standup is at ten'],
    ])
      assert.equal(mem(home.home, ['add', text!, '--agent', agent!]).code, 0)
    assert.equal(mem(home.home, ['save', '--agent', 'team', '--state', '{"step":1}']).code, 0)
    const file = join(home.home, 'agents', 'bob', 'facts', '000001.json')
    writeFileSync(file, readFileSync(file).subarray(0, 30))
  })
  after(() => home.cleanup())

  it('mem agents lists every healthy agent, names the damaged one on stderr, exits 1', () => {
    const r = mem(home.home, ['agents'])
    assert.equal(r.code, 1, r.stderr)
    assert.match(
      r.stdout,
      /^2 agents:\n- alice: 1 live fact.*\n- team: 1 live fact.*\nLeft out \(could not be read\): bob\.\n$/,
    )
    assert.match(r.stderr, /^Error: agent bob was left out: .*agents\/bob\/facts\/000001\.json.*not valid JSON/)
    const json = mem(home.home, ['agents', '--json'])
    assert.equal(json.code, 1)
    const payload = JSON.parse(json.stdout) as {
      agents: {agent_id: string}[]
      unreadable: {agent_id: string; code: string}[]
    }
    assert.deepEqual(
      payload.agents.map((a) => a.agent_id),
      ['alice', 'team'],
    )
    assert.deepEqual(
      payload.unreadable.map((u) => [u.agent_id, u.code]),
      [['bob', 'corrupt_file']],
    )
  })

  it('mem export --all -o FILE writes every healthy agent, records the missing one in the header, exits 1', () => {
    const file = join(home.home, 'backup.jsonl')
    const r = mem(home.home, ['export', '--all', '-o', file])
    assert.equal(r.code, 1, r.stderr)
    assert.match(r.stdout, /Left out 1 agent that could not be read: bob\./)
    assert.match(r.stderr, /^Error: agent bob was left out: /)
    const lines = readFileSync(file, 'utf8')
      .trim()
      .split('\n')
      .map(
        (l) =>
          JSON.parse(l) as {
            type: string
            agent_id?: string
            missing?: {agent_id: string; code: string; message: string}[]
          },
      )
    assert.deepEqual(
      lines[0]!.missing?.map((m) => [m.agent_id, m.code]),
      [['bob', 'corrupt_file']],
    )
    assert.match(lines[0]!.missing![0]!.message, /not valid JSON/)
    assert.deepEqual([...new Set(lines.slice(1).map((l) => l.agent_id))], ['alice', 'team'])
    // The file is a good backup of what could be read.
    const restored = tempHome()
    try {
      assert.equal(mem(restored.home, ['import', file]).code, 0)
      assert.deepEqual(
        (JSON.parse(mem(restored.home, ['agents', '--json']).stdout) as {agents: {agent_id: string}[]}).agents.map(
          (a) => a.agent_id,
        ),
        ['alice', 'team'],
      )
    } finally {
      restored.cleanup()
    }
  })

  it('mem export --all to stdout does the same; one named agent still fails as before', () => {
    const r = mem(home.home, ['export', '--all'])
    assert.equal(r.code, 1)
    assert.equal(r.stdout.trim().split('\n').length, 1 + 3)
    const one = mem(home.home, ['export', '--agent', 'bob', '--json'])
    assert.equal(one.code, 1)
    assert.equal((JSON.parse(one.stdout) as {error: {code: string}}).error.code, 'corrupt_file')
  })
})
