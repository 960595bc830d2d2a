import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import * as v from 'valibot'

import {DbDoctorReport} from '../../src/doctor/database.js'
import {mem, ROOT, tempHome, type RunResult} from '../helpers/mem.js'
import {freshDatabase, sql} from '../helpers/postgres.js'

/** `mem doctor` and `mem doctor --fix` while MEM_STORE selects PostgreSQL, through the built binary on a real database. */
describe('mem doctor on PostgreSQL (MEM_STORE)', function () {
  this.timeout(120_000)
  let temp: ReturnType<typeof tempHome>
  beforeEach(() => {
    temp = tempHome()
  })
  afterEach(() => temp.cleanup())

  const run = (url: string, args: string[]): RunResult => mem(temp.home, args, {env: {MEM_STORE: url}})
  const report = (r: RunResult): DbDoctorReport => v.parse(DbDoctorReport, JSON.parse(r.stdout))
  const kinds = (r: DbDoctorReport) => r.problems.map((p) => `${p.kind} ${p.fixed ? 'fixed' : 'left'}`).sort()

  it('an empty database: nothing stored yet, and nothing created', async () => {
    const url = await freshDatabase()
    const r = run(url, ['doctor'])
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /^Nothing is stored in postgres:.* yet: mem has no tables there\./)
    assert.equal(run(url, ['doctor', '--fix']).code, 0)
    const tables = await sql(url, `SELECT 1 FROM pg_tables WHERE tablename LIKE 'mem_%'`)
    assert.equal(tables.length, 0)
  })

  it('a database mem wrote: in order, and the report has the schema, the counts and no problems', async () => {
    const url = await freshDatabase()
    const id = (JSON.parse(run(url, ['add', '--json', 'the build runs nightly']).stdout) as {fact_id: string}).fact_id
    run(url, ['reflect', 'update', '--fact', id, '--content', 'the build runs hourly'])
    run(url, ['save', '--agent', 'bob', '--state', '{"step":1}'])
    const text = run(url, ['doctor'])
    assert.equal(text.code, 0, text.stderr)
    assert.match(
      text.stdout,
      /^Checked postgres:.*: schema version 3 \(current\), 2 agents, 2 facts, 1 checkpoint\.\nEverything is in order\.\n$/,
    )
    const json = report(run(url, ['doctor', '--json']))
    assert.deepEqual(json, {
      database: url,
      ok: true,
      fix: false,
      schema: {version: 3, latest: 3},
      checked: {agents: 2, facts: 2, checkpoints: 1},
      problems: [],
    })
  })

  it('--fix repairs counters behind their rows and a saved index ahead of its agent, and leaves an inconsistent row for a restore', async () => {
    const url = await freshDatabase()
    const add = (content: string) =>
      (JSON.parse(run(url, ['add', '--json', content]).stdout) as {fact_id: string}).fact_id
    const a = add('the deploy key rotates monthly')
    const b = add('the staging cluster is in eu-west-2')
    const records = await sql(url, 'SELECT id, record::text AS text FROM mem_facts ORDER BY id')

    // Damage, by hand: counters behind the rows, an index claiming a later revision, a live flag off.
    await sql(url, `UPDATE mem_agents SET revision = 1, fact_seq = 1, last_fact_id = $1`, [a])
    await sql(
      url,
      `INSERT INTO mem_search_index (agent, revision, signature, data) VALUES ('default', 99, 'x', '\\x00')`,
    )
    await sql(url, 'UPDATE mem_facts SET live = false WHERE id = $1', [a])

    const found = run(url, ['doctor', '--json'])
    assert.equal(found.code, 1)
    const before = report(found)
    assert.deepEqual(kinds(before), [
      'agent_counters left',
      'agent_counters left',
      'inconsistent_row left',
      'inconsistent_row left',
      'search_index left',
    ])
    const text = run(url, ['doctor']).stdout
    assert.match(text, new RegExp(`\\[problem\\] agent default, ${b}\\n  its position or id is past the agent's last`))
    assert.match(text, /\[problem\] agent default\n {2}its saved search index claims a revision after the agent's/)
    assert.match(text, /5 problems left\. Run "mem doctor --fix" to repair what can be repaired safely\.\n$/)

    const fixed = run(url, ['doctor', '--fix', '--json'])
    assert.equal(fixed.code, 1, 'an inconsistent row is left')
    const after = report(fixed)
    assert.equal(after.ok, false)
    assert.deepEqual(kinds(after), [
      'agent_counters fixed',
      'agent_counters fixed',
      'inconsistent_row left',
      'inconsistent_row left',
      'search_index fixed',
    ])
    for (const p of after.problems.filter((x) => !x.fixed)) {
      assert.equal(p.id, a)
      assert.match(p.fix, /^nothing --fix can do: .*restore the row from a backup/)
    }
    const prose = run(url, ['doctor', '--fix']).stdout
    assert.match(prose, new RegExp(`\\[NOT FIXED\\] agent default, ${a}\\n  its column "live" disagrees`))
    assert.match(prose, /2 problems left\.\n$/)

    // The records are as they were; the counters cover them, so the next id comes after them.
    assert.deepEqual(await sql(url, 'SELECT id, record::text AS text FROM mem_facts ORDER BY id'), records)
    assert.deepEqual(await sql(url, 'SELECT 1 FROM mem_search_index'), [])
    const next = add('a fact after the repair')
    assert.ok(next > b, `${next} comes after ${b}`)
    const checked = JSON.parse(run(url, ['db', 'check', '--json']).stdout) as {problems: {id?: string}[]}
    assert.deepEqual(
      checked.problems.map((p) => p.id),
      [a, a],
    )
  })

  it('a schema behind this mem: reported, and --fix applies what is missing', async () => {
    const url = await freshDatabase()
    const first = readFileSync(join(ROOT, 'src', 'store', 'postgres', 'migrations', '0001_initial.sql'), 'utf8')
    await sql(url, first)
    await sql(
      url,
      `CREATE TABLE mem_schema_versions (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now());
       INSERT INTO mem_schema_versions (version, name) VALUES (1, 'initial')`,
    )
    const found = run(url, ['doctor'])
    assert.equal(found.code, 1)
    assert.match(found.stdout, /: schema version 1, this mem applies 3\.\n/)
    assert.match(found.stdout, /the schema is at version 1, behind this mem's 3/)

    const fixed = run(url, ['doctor', '--fix', '--json'])
    assert.equal(fixed.code, 0, fixed.stdout)
    const r = report(fixed)
    assert.deepEqual(r.schema, {version: 3, latest: 3})
    assert.deepEqual(r.problems, [
      {
        kind: 'schema',
        problem: "the schema was at version 1, behind this mem's 3",
        fix: 'applied 0002 search_index, 0003 vectors',
        fixed: true,
      },
    ])
    assert.equal(run(url, ['doctor']).code, 0)
  })

  it('a schema newer than this mem: reported, and --fix changes nothing', async () => {
    const url = await freshDatabase()
    run(url, ['add', 'before the upgrade'])
    await sql(url, `INSERT INTO mem_schema_versions (version, name) VALUES (999, 'future')`)
    const r = run(url, ['doctor', '--fix', '--json'])
    assert.equal(r.code, 1)
    const [problem] = report(r).problems
    assert.equal(problem!.kind, 'unsupported_version')
    assert.equal(problem!.fixed, false)
    assert.match(problem!.fix, /upgrade mem/)
    assert.equal((await sql(url, 'SELECT max(version) AS v FROM mem_schema_versions'))[0]!.v, 999)
  })

  it('a database it cannot reach: a connection problem, exit 1, and no password shown', () => {
    const url = 'postgres://mem:hunter2@127.0.0.1:1/mem'
    const r = run(url, ['doctor', '--json'])
    assert.equal(r.code, 1)
    const json = report(r)
    assert.equal(json.database, 'postgres://mem:***@127.0.0.1:1/mem')
    assert.equal(json.problems[0]!.kind, 'connection')
    assert.match(json.problems[0]!.problem, /could not reach PostgreSQL at postgres:\/\/mem:\*\*\*@127\.0\.0\.1:1\/mem/)
    const text = run(url, ['doctor'])
    assert.match(text.stdout, /^Could not check postgres:\/\/mem:\*\*\*@127\.0\.0\.1:1\/mem\.\n/)
    for (const out of [r.stdout, r.stderr, text.stdout, text.stderr]) assert.doesNotMatch(out, /hunter2/)
  })
})
