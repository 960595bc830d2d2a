import assert from 'node:assert/strict'
import {chmodSync, existsSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import * as v from 'valibot'

import {DoctorReport} from '../../src/doctor/report.js'
import {mem, tempHome} from '../helpers/mem.js'
import {modeOf} from './files.js'

function report(home: string, args: string[] = []): {code: number; report: DoctorReport} {
  const r = mem(home, ['doctor', '--json', ...args])
  const parsed = v.safeParse(DoctorReport, JSON.parse(r.stdout))
  assert.ok(parsed.success, `the --json payload matches the report schema: ${r.stdout}`)
  return {code: r.code, report: parsed.output}
}

describe('mem doctor (built binary)', function () {
  this.timeout(60_000)
  let home: ReturnType<typeof tempHome>
  beforeEach(() => {
    home = tempHome()
    for (const args of [
      ['add', 'one'],
      ['add', 'two'],
      ['save', '--state', '{"a":1}'],
    ])
      assert.equal(mem(home.home, [...args, '-a', 'alice']).code, 0)
  })
  afterEach(() => home.cleanup())

  it('a healthy home: exit 0, prose says so', () => {
    const r = mem(home.home, ['doctor'])
    assert.equal(r.code, 0)
    // The facts' JSON file and its journal (the second add), and the checkpoints' file.
    assert.match(r.stdout, /^Checked 3 data files of 1 agent in .*\nEverything is in order\.\n$/)
    assert.deepEqual(report(home.home).report.problems, [])
  })

  it('a home that does not exist yet is healthy and stays absent', () => {
    const missing = join(home.home, 'nothing-here')
    const r = report(missing)
    assert.equal(r.code, 0)
    assert.deepEqual(r.report.checked, {agents: 0, files: 0})
    assert.equal(existsSync(missing), false)
  })

  it("the home folder itself is only reported: it may not be mem's alone", () => {
    chmodSync(home.home, 0o755)
    const r = report(home.home, ['--fix'])
    assert.equal(r.code, 1)
    assert.deepEqual(
      r.report.problems.map((p) => [p.kind, p.path, p.fixed]),
      [['permissions', home.home, false]],
    )
    assert.match(r.report.problems[0]!.fix, /chmod 700/)
    assert.equal(modeOf(home.home), 0o755)
  })

  it('leftover temp files and loose permissions: reported (exit 1), then fixed by --fix (exit 0)', () => {
    const facts = join(home.home, 'agents/alice/facts')
    const orphan = join(facts, '.000001.json.999999999.abcd1234.tmp')
    const inProgress = join(facts, `.000001.json.${process.pid}.abcd1234.tmp`)
    writeFileSync(orphan, '{"half')
    writeFileSync(inProgress, '{"half')
    chmodSync(join(facts, '000001.json'), 0o644)
    chmodSync(join(home.home, 'agents/alice'), 0o755)

    const found = report(home.home)
    assert.equal(found.code, 1)
    assert.deepEqual(
      found.report.problems.map((p) => [p.kind, p.path, p.fixed]).sort(),
      [
        ['permissions', join(facts, '000001.json'), false],
        ['permissions', join(home.home, 'agents/alice'), false],
        ['temp_file', orphan, false],
      ].sort(),
      'a temp file whose writer is alive is not reported',
    )
    const prose = mem(home.home, ['doctor'])
    assert.match(prose.stdout, /3 problems left\. Run "mem doctor --fix"/)

    const fixed = report(home.home, ['--fix'])
    assert.equal(fixed.code, 0)
    assert.ok(fixed.report.ok)
    assert.equal(existsSync(orphan), false)
    // Under the lock no write is in progress, so every temp file is a leftover.
    assert.equal(existsSync(inProgress), false)
    assert.equal(report(home.home).code, 0)
  })

  it('auth/ is checked and repaired like the other folders, and a token command never writes into a loose one', () => {
    assert.equal(mem(home.home, ['token', 'create', '--name', 'laptop']).code, 0)
    const auth = join(home.home, 'auth')
    const tokens = join(auth, 'tokens.json')
    const lock = join(auth, 'write.lock')
    const orphan = join(auth, '.tokens.json.999999999.abcd1234.tmp')
    writeFileSync(orphan, '{"half')
    chmodSync(auth, 0o777)
    chmodSync(tokens, 0o644)
    chmodSync(lock, 0o666)

    const found = report(home.home)
    assert.equal(found.code, 1)
    assert.deepEqual(
      found.report.problems.map((p) => [p.kind, p.path, p.fixed]).sort(),
      [
        ['permissions', auth, false],
        ['permissions', lock, false],
        ['permissions', tokens, false],
        ['temp_file', orphan, false],
      ].sort(),
    )
    assert.match(
      found.report.problems.find((p) => p.path === auth)!.problem,
      /mode 0777; mem keeps its folders private/,
    )
    const fixed = report(home.home, ['--fix'])
    assert.equal(fixed.code, 0)
    assert.deepEqual([modeOf(auth), modeOf(tokens), modeOf(lock)], [0o700, 0o600, 0o600])
    assert.equal(existsSync(orphan), false)

    // A token command finds the folder loose again: it makes it private before writing a token there.
    chmodSync(auth, 0o777)
    assert.equal(mem(home.home, ['token', 'create', '--name', 'desk']).code, 0)
    assert.equal(modeOf(auth), 0o700)

    // No copy of the token file is kept: a damaged one is reported and left, and every command says how to go on.
    writeFileSync(tokens, '{"version": 1, "tok')
    const damaged = report(home.home, ['--fix'])
    assert.equal(damaged.code, 1)
    assert.deepEqual(
      damaged.report.problems.map((p) => [p.kind, p.path, p.fixed]),
      [['corrupt_file', tokens, false]],
    )
    assert.match(
      damaged.report.problems[0]!.fix,
      /^no copy of it is kept: repair it by hand, or move it away and make new tokens with "mem token create"/,
    )
    const list = mem(home.home, ['token', 'list'])
    assert.equal(list.code, 1)
    assert.match(
      list.stderr,
      /tokens\.json cannot be used: it is not valid JSON\. It was left untouched\. To go on, repair it by hand, or move it away/,
    )
  })
})
