import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {agentList, checkpointList, checkpointResume, factHistory, factList, memorySearch} from '../../src/ops/index.js'
import {modulesResolvedBy, packagesAmong} from '../helpers/loads.js'
import {BIN, ROOT, mem, tempHome} from '../helpers/mem.js'
import {memAtTerminal} from '../helpers/terminal.js'
import {unstyled} from '../../src/cli/terminal-style.js'

/** The environment of a pipe: no NO_COLOR, so only the pipe itself keeps colour away. */
const PIPE = {env: {NO_COLOR: undefined, MEM_AGENT: 'alice'}}

function json(home: string, args: string[]): Record<string, unknown> {
  const r = mem(home, [...args, '--json'], PIPE)
  assert.equal(r.code, 0, r.stderr)
  return JSON.parse(r.stdout) as Record<string, unknown>
}

function ok(home: string, args: string[]): string {
  const r = mem(home, args, PIPE)
  assert.equal(r.code, 0, r.stderr)
  assert.ok(!r.stdout.includes('\u001B'), `no escape codes in a pipe: ${JSON.stringify(r.stdout)}`)
  return r.stdout
}

describe('everyday commands through the built binary (stdout is a pipe)', () => {
  let home: ReturnType<typeof tempHome>
  const ids = {npm: '', deploy: '', db: '', bun: ''}

  before(() => {
    home = tempHome()
    const add = (text: string, ...tags: string[]) =>
      String(json(home.home, ['add', text, ...tags.flatMap((t) => ['--tag', t])]).fact_id)
    ids.npm = add('Uses npm for every project', 'tooling')
    ids.deploy = add('Deploys happen on Tuesdays', 'ops')
    ids.db = add('The staging database is read-only on Fridays', 'ops', 'db')
    ids.bun = String(
      json(home.home, [
        'reflect',
        'update',
        '--fact',
        ids.npm,
        '--content',
        'Uses bun for every project',
        '--reason',
        'faster installs',
      ]).fact_id,
    )
    json(home.home, ['reflect', 'delete', '--fact', ids.db])
    json(home.home, ['save', '--state', '{"task":"first"}', '--label', 'one'])
    json(home.home, ['save', '--state', '{"task":"second","step":2}', '--messages', '[{"role":"user"}]'])
    json(home.home, ['add', 'Bob likes tea', '--agent', 'bob'])
  })
  after(() => home.cleanup())

  it('list prints live facts newest first; the plain text is the prose of its --json payload', () => {
    const payload = json(home.home, ['list'])
    assert.deepEqual(
      (payload.facts as {id: string}[]).map((f) => f.id),
      [ids.bun, ids.deploy],
    )
    assert.equal(ok(home.home, ['list']), `${factList.prose(payload as never)}\n`)
  })

  it('list --all shows replaced and deleted versions; --tag and --limit narrow it', () => {
    const all = json(home.home, ['list', '--all']) as {facts: {id: string; status: string}[]; total: number}
    assert.deepEqual(
      all.facts.map((f) => [f.id, f.status]),
      [
        [ids.bun, 'live'],
        [ids.db, 'deleted'],
        [ids.deploy, 'live'],
        [ids.npm, 'superseded'],
      ],
    )
    const text = ok(home.home, ['list', '--all'])
    assert.match(
      text,
      new RegExp(`Uses npm for every project \\[tooling\\] \\(id ${ids.npm}, saved [^;]+; replaced by ${ids.bun} `),
    )
    assert.match(text, /read-only on Fridays \[ops, db\] \(id \w+, saved [^;]+; deleted /)
    const ops = json(home.home, ['list', '--all', '--tag', 'ops', '--tag', 'db']) as {facts: {id: string}[]}
    assert.deepEqual(
      ops.facts.map((f) => f.id),
      [ids.db],
    )
    const one = json(home.home, ['list', '--limit', '1'])
    assert.equal(one.count, 1)
    assert.equal(one.total, 2)
    assert.match(ok(home.home, ['list', '--limit', '1']), /^1 of 2 facts for agent alice, newest first:\n/)
  })

  it('search and list take --since / --until as ISO dates or phrases', () => {
    const all = json(home.home, ['search', 'deploys'])
    assert.ok(Number(all.count) > 0)
    assert.deepEqual(json(home.home, ['search', 'deploys', '--since', 'yesterday']), all)
    assert.equal(json(home.home, ['search', 'deploys', '--since', 'tomorrow']).count, 0)
    assert.equal(json(home.home, ['search', 'deploys', '--until', '3 days ago']).count, 0)
    assert.deepEqual(json(home.home, ['search', 'deploys', '--until', 'tomorrow', '--since', '2020-01-01']), all)
    assert.equal(json(home.home, ['list', '--since', 'last week']).count, 2)
    assert.equal(json(home.home, ['list', '--until', '2020-01-01T00:00:00Z']).count, 0)
  })

  it('at a terminal, a search for words too common to search by says so; the piped prose stays as it was', () => {
    const shown = memAtTerminal(home.home, ['search', 'what', 'is', 'it'], {MEM_AGENT: 'alice', NO_COLOR: undefined})
    assert.equal(shown.code, 0, shown.stdout)
    assert.equal(
      unstyled(shown.stdout),
      'No facts found for "what is it" · agent alice\nIts words are all too common to search by: add a word the fact would hold.\n',
    )
    assert.equal(ok(home.home, ['search', 'what', 'is', 'it']), 'No facts found for "what is it" (agent alice).\n')
    assert.equal(json(home.home, ['search', 'the']).count, 0)
  })

  it('state that is not JSON is refused naming where it came from and where it breaks, never quoting it', () => {
    const state = join(home.home, 'state.json')
    writeFileSync(state, '{"token": "s3cr3t",\n}')
    const cases = [
      [['save', '--state', '{"token": "s3cr3t" x}'], '--state: it is not valid JSON at line 1, column 20'],
      [
        ['save', '--state-file', state],
        `the state file ${state}: it is not valid JSON at line 2, column 1 (a comma before a closing bracket)`,
      ],
      [
        ['save', '--state', '{}', '--messages', '[1,'],
        '--messages: it is not valid JSON: it ends too early (line 1, column 4)',
      ],
    ] as const
    for (const [args, said] of cases) {
      const r = mem(home.home, [...args], PIPE)
      assert.equal(r.code, 2, r.stderr)
      assert.equal(r.stderr, `Error: ${said}\n`)
      assert.doesNotMatch(r.stderr, /s3cr3t/)
    }
    const piped = mem(home.home, ['save'], {...PIPE, input: '{"step":'})
    assert.equal(
      piped.stderr,
      'Error: the state on stdin: it is not valid JSON: it ends too early (line 1, column 9)\n',
    )
  })

  it('reflect update to the text a fact already holds changes nothing, and history keeps one version', () => {
    const own = tempHome()
    try {
      const {fact_id: id} = json(own.home, ['add', 'Lunch is at noon']) as {fact_id: string}
      assert.equal(
        ok(own.home, ['reflect', 'update', '--fact', id, '--content', 'Lunch is at noon']),
        `Fact ${id} of agent alice already says this, with the same tags and thread; nothing was changed.\n`,
      )
      assert.equal(json(own.home, ['history', id]).count, 1)
    } finally {
      own.cleanup()
    }
  })

  it('an empty --agent, --thread or --tag is said to be empty, and only that', () => {
    for (const [flag, said] of [
      ['--agent', '--agent: must not be empty'],
      ['--thread', '--thread: must not be empty'],
      ['--tag', '--tag: a tag must not be empty'],
    ] as const) {
      const r = mem(home.home, ['add', 'a fact', flag, ''], PIPE)
      assert.equal(r.code, 2, r.stderr)
      assert.equal(r.stderr, `Error: invalid input: ${said}\n`)
    }
  })

  it('a range that ends before it starts is a usage error in flag words, not an empty result', () => {
    for (const args of [
      ['search', 'deploys', '--since', 'tomorrow', '--until', 'yesterday'],
      ['list', '--since', '2026-05-01', '--until', '2026-05-01'],
    ]) {
      const r = mem(home.home, args, PIPE)
      assert.equal(r.code, 2, r.stderr)
      assert.equal(r.stdout, '')
      assert.match(
        r.stderr,
        /^Error: invalid input: --until must be after --since, or no fact can match \(\S+ is not after \S+\)\n/,
      )
    }
  })

  it('an unreadable --since is a usage error that says what would work, also under --json', () => {
    const r = mem(home.home, ['search', 'deploys', '--since', 'the other day-ish'], PIPE)
    assert.equal(r.code, 2)
    assert.match(
      r.stderr,
      /--since "the other day-ish" is not a date: use an ISO date such as 2026-05-01, or a phrase such as "yesterday"/,
    )
    const j = mem(home.home, ['list', '--until', 'soonish', '--json'], PIPE)
    assert.equal(j.code, 2)
    assert.equal((JSON.parse(j.stdout) as {error: {code: string}}).error.code, 'invalid_input')
  })

  it('search and resume print their prose byte for byte in a pipe, even without NO_COLOR', () => {
    const found = json(home.home, ['search', 'deploys'])
    assert.equal(ok(home.home, ['search', 'deploys']), `${memorySearch.prose(found as never)}\n`)
    const resumed = json(home.home, ['resume'])
    assert.equal(ok(home.home, ['resume']), `${checkpointResume.prose(resumed as never)}\n`)
  })

  it('history shows the chain from any version, oldest first', () => {
    for (const id of [ids.npm, ids.bun]) {
      const payload = json(home.home, ['history', id]) as {versions: {id: string; status: string; reason?: string}[]}
      assert.deepEqual(
        payload.versions.map((v) => [v.id, v.status]),
        [
          [ids.npm, 'superseded'],
          [ids.bun, 'live'],
        ],
      )
      assert.equal(payload.versions[1]!.reason, 'faster installs')
      assert.equal(ok(home.home, ['history', id]), `${factHistory.prose(payload as never)}\n`)
    }
    const deleted = json(home.home, ['history', ids.db]) as {versions: {status: string}[]}
    assert.deepEqual(
      deleted.versions.map((v) => v.status),
      ['deleted'],
    )
    const missing = mem(home.home, ['history', '01JDQ3N7X2C9V5K8M4T6R0B1AZ'], PIPE)
    assert.equal(missing.code, 3)
    assert.match(missing.stderr, /No fact "01JDQ3N7X2C9V5K8M4T6R0B1AZ" found for agent "alice"/)
    assert.equal(mem(home.home, ['history', 'nope'], PIPE).code, 2)
  })

  it('checkpoints lists newest first with their state keys', () => {
    const payload = json(home.home, ['checkpoints']) as {
      checkpoints: {label?: string; message_count: number; state_keys: string[]}[]
    }
    assert.deepEqual(
      payload.checkpoints.map((c) => [c.label, c.message_count, c.state_keys]),
      [
        [undefined, 1, ['task', 'step']],
        ['one', 0, ['task']],
      ],
    )
    assert.equal(ok(home.home, ['checkpoints']), `${checkpointList.prose(payload as never)}\n`)
    assert.equal(ok(home.home, ['checkpoints', '--agent', 'bob']), 'No checkpoints saved for agent bob.\n')
  })

  it('agents lists every agent with counts and last activity', () => {
    const payload = json(home.home, ['agents']) as {agents: Record<string, unknown>[]}
    assert.deepEqual(
      payload.agents.map(({last_activity, ...rest}) => (assert.match(String(last_activity), /^\d{4}-/), rest)),
      [
        {agent_id: 'alice', facts: 2, superseded: 1, deleted: 1, checkpoints: 2},
        {agent_id: 'bob', facts: 1, superseded: 0, deleted: 0, checkpoints: 0},
      ],
    )
    assert.equal(ok(home.home, ['agents']), `${agentList.prose(payload as never)}\n`)
  })

  it('mem with no arguments outside a terminal prints the help, as before', () => {
    const bare = mem(home.home, [], PIPE)
    assert.equal(bare.code, 0)
    assert.equal(bare.stdout, mem(home.home, ['--help'], PIPE).stdout)
    assert.match(bare.stdout, /COMMANDS/)
    assert.match(bare.stdout, /browse/)
  })

  it('mem browse outside a terminal refuses and points to the scriptable commands', () => {
    const r = mem(home.home, ['browse'], PIPE)
    assert.equal(r.code, 2)
    assert.match(r.stderr, /mem browse needs a terminal/)
  })
})

describe('what the everyday commands load', () => {
  let home: ReturnType<typeof tempHome>
  before(() => {
    home = tempHome()
    mem(home.home, ['add', 'Deploys happen on Tuesdays'])
  })
  after(() => home.cleanup())

  const resolvedBy = (args: string[]) => modulesResolvedBy(home.home, args)
  const loaded = (args: string[]) => resolvedBy([BIN, ...args])

  const heavy = (urls: string[], names = 'ink|react|@modelcontextprotocol') => packagesAmong(urls, names)

  it('search, list, agents, history and checkpoints never load ink, react or the MCP SDK', () => {
    for (const args of [
      ['search', 'deploys'],
      ['list'],
      ['agents'],
      ['checkpoints'],
      ['search', 'deploys', '--since', 'last week'],
    ]) {
      const urls = loaded(args)
      assert.ok(
        urls.some((u) => u.includes('/dist/')),
        `the trace saw mem load for ${args.join(' ')}`,
      )
      assert.deepEqual(heavy(urls), [], `mem ${args.join(' ')}`)
    }
  })

  it('reading --since/--until loads chrono-node only for a phrase, not for an ISO date', () => {
    // The module as written (run through tsx): the build bundles it, so its own imports are what show.
    const phrases = join(ROOT, 'src', 'cli', 'time-phrases.ts')
    const run = (value: string) =>
      resolvedBy([
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `const {resolveTimePhrase} = await import(${JSON.stringify(phrases)}); console.log(await resolveTimePhrase(${JSON.stringify(value)}, '--since'))`,
      ])
    const iso = run('2026-01-01')
    assert.ok(
      iso.some((u) => u.endsWith('/src/cli/time-phrases.ts')),
      'the trace saw the module load',
    )
    assert.deepEqual(heavy(iso, 'chrono-node'), [])
    assert.ok(heavy(run('last week'), 'chrono-node').length > 0)
  })
})
