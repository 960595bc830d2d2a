import assert from 'node:assert/strict'
import {copyFileSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'

import * as v from 'valibot'

import {DoctorReport} from '../../src/doctor/report.js'
import {FileStore} from '../../src/store/file/file-store.js'
import {agentDir} from '../../src/store/file/paths.js'
import {isLive} from '../../src/store/records.js'
import {mem, tempHome} from '../helpers/mem.js'
import {failing, startMem} from '../torture/helpers.js'
import {modeOf, readBack, snapshot} from './files.js'

/**
 * A journal some of whose lines cannot be applied (docs/reliability.md, "A damaged journal"):
 * every command refuses the agent and points to `mem doctor --fix`, which keeps every line that
 * applies and sets the others aside in a file beside it, never deleting one.
 */
describe('a damaged journal is repaired without losing the good lines (built mem, real files)', function () {
  this.timeout(120_000)
  let home: ReturnType<typeof tempHome>
  beforeEach(() => {
    home = tempHome()
  })
  afterEach(() => home.cleanup())

  const folder = (agent = 'alice', kind = 'facts'): string => join(agentDir(home.home, agent), kind)
  const journal = (agent = 'alice', kind = 'facts', segment = '000001'): string =>
    join(folder(agent, kind), `${segment}.jsonl`)
  const linesOf = (path: string): string[] => readFileSync(path, 'utf8').split('\n').slice(0, -1)
  const writeLines = (path: string, lines: string[]): void => writeFileSync(path, lines.map((l) => `${l}\n`).join(''))
  const asideFiles = (dir = folder()): string[] =>
    readdirSync(dir)
      .filter((n) => n.includes('.set-aside-'))
      .map((n) => join(dir, n))

  function report(args: string[]): {code: number; report: DoctorReport; stdout: string} {
    const r = mem(home.home, ['doctor', '--json', ...args])
    const parsed = v.safeParse(DoctorReport, JSON.parse(r.stdout))
    assert.ok(parsed.success, `the --json payload matches the report schema: ${r.stdout}`)
    return {code: r.code, report: parsed.output, stdout: r.stdout}
  }

  /** Facts added through the store itself (the code the binary runs), then every record moved into the journal. */
  async function journalHoldingEveryFact(count: number): Promise<string[]> {
    const store = new FileStore(home.home)
    const ids: string[] = []
    for (let i = 0; i < count; i++)
      ids.push((await store.addFact('alice', {content: `fact number ${i} of ${count}`, tags: []})).id)
    // The shape the issue found: the segment file an empty envelope, the journal holding every fact.
    const file = join(folder(), '000001.json')
    const envelope = JSON.parse(readFileSync(file, 'utf8')) as {records: unknown[]}
    const lines = linesOf(journal())
    writeLines(journal(), [lines[0]!, ...envelope.records.map((r) => JSON.stringify({add: r})), ...lines.slice(1)])
    writeFileSync(file, `${JSON.stringify({...envelope, records: []})}\n`)
    return ids
  }

  const liveContents = async (agent = 'alice'): Promise<string[]> =>
    (await readBack(home.home, agent)).facts.filter(isLive).map((f) => f.content)

  it('one line changed in the middle of a journal holding all 37 facts: --fix keeps the other 36 and sets that one aside', async () => {
    const ids = await journalHoldingEveryFact(37)
    assert.equal((await liveContents()).length, 37, 'the store reads the journal whole')
    const original = linesOf(journal())
    assert.equal(original.length, 38)
    // Line 20 adds the 19th fact; a quote lost in an editor makes it no longer JSON.
    const damaged = [...original]
    damaged[19] = damaged[19]!.replace('"content":"', '"content":')
    writeLines(journal(), damaged)
    const before = snapshot(home.home)

    for (const args of [['list'], ['search', 'fact'], ['add', 'one more'], ['export']]) {
      const r = mem(home.home, [...args, '-a', 'alice', '--json'])
      assert.equal(r.code, 1, `${args[0]}: ${r.stdout}`)
      const message = (JSON.parse(r.stdout) as {error: {message: string}}).error.message
      assert.match(message, /000001\.jsonl cannot be used: line 20 is not valid JSON\. It was left untouched\./)
      assert.match(
        message,
        /Run "mem doctor --fix" to keep every line that can be applied and set the others aside in a file beside it \(nothing is deleted\)/,
      )
    }
    const plan = mem(home.home, ['doctor'])
    assert.equal(plan.code, 1)
    assert.match(
      plan.stdout,
      /--fix: keep 36 changes that apply, and set aside 1 line \(line 20\) in a new file beside it \(nothing is deleted\)/,
    )
    assert.deepEqual(snapshot(home.home), before, 'neither the commands nor doctor without --fix changed a byte')

    const fixed = report(['--fix'])
    assert.equal(fixed.code, 0, fixed.stdout)
    const [problem] = fixed.report.problems
    assert.equal(fixed.report.problems.length, 1)
    assert.equal(problem!.fixed, true)
    const [aside] = asideFiles()
    assert.ok(aside, 'a file of lines set aside is beside the journal')
    assert.equal(dirname(aside), folder())
    assert.deepEqual(problem!.set_aside, {kept: 36, lines: [20], file: aside})
    assert.equal(
      problem!.fix,
      `kept 36 changes and set aside 1 line (line 20) in ${aside}; mem never reads that file (docs/reliability.md says how to take a line back)`,
    )
    assert.equal(readFileSync(aside, 'utf8'), `${damaged[19]}\n`, 'the line set aside, byte for byte')
    assert.equal(modeOf(aside), 0o600)
    assert.deepEqual(
      linesOf(journal()),
      [...original.slice(0, 19), ...original.slice(20)],
      'the other lines, byte for byte',
    )
    const listed = JSON.parse(mem(home.home, ['list', '-a', 'alice', '-n', '100', '--json']).stdout) as {
      facts: {id: string}[]
    }
    assert.deepEqual(listed.facts.map((f) => f.id).sort(), ids.filter((_, i) => i !== 18).sort())

    // The file set aside is never read as data; doctor mentions it without calling it a problem.
    const found = JSON.parse(mem(home.home, ['search', 'number 18 of', '-a', 'alice', '--json']).stdout) as {
      facts: {content: string}[]
    }
    assert.equal(
      found.facts.some((f) => f.content.includes('number 18 of')),
      false,
    )
    assert.equal(mem(home.home, ['export', '-a', 'alice']).stdout.includes('number 18 of'), false)
    const after = mem(home.home, ['doctor'])
    assert.equal(after.code, 0, after.stdout)
    assert.ok(after.stdout.includes(`[note] ${aside}\n  lines "mem doctor --fix" set aside from 000001.jsonl`))
    assert.match(after.stdout, /\nEverything else is in order\.\n$/)
    assert.equal(mem(home.home, ['add', 'after the repair', '-a', 'alice']).code, 0)

    // A second repair makes a file of its own: the first is never written over.
    const firstAside = readFileSync(aside)
    const again = linesOf(journal())
    again[5] = '{"add":'
    writeLines(journal(), again)
    assert.equal(mem(home.home, ['doctor', '--fix']).code, 0)
    const both = asideFiles()
    assert.equal(both.length, 2)
    assert.deepEqual(readFileSync(aside), firstAside)
    assert.equal(
      readFileSync(
        both.find((f) => f !== aside)!,
        'utf8',
      ),
      '{"add":\n',
    )
    assert.equal((await liveContents()).length, 36)
  })

  it('lines that depend on a line set aside go with it, and a fact whose mark is set aside reads as before it', async () => {
    const store = new FileStore(home.home)
    const add = async (content: string): Promise<string> => (await store.addFact('alice', {content, tags: []})).id
    await add('zero, in the JSON file')
    const a = await add('alpha')
    const b = await add('beta')
    const c = await add('gamma')
    await add('delta')
    await store.deleteFact('alice', b)
    const c2 = (await store.supersede('alice', [c], {content: 'gamma, corrected', tags: []})).id
    const e = await add('epsilon')
    await store.deleteFact('alice', e)
    const lines = linesOf(journal())
    // 1 header, 2-5 adds of alpha to delta, 6 delete beta, 7 add gamma's replacement, 8 mark gamma replaced, 9 add epsilon, 10 delete it.
    assert.equal(lines.length, 10)
    lines[5] = lines[5]!.replace('{"mark"', '{"mark":')
    lines[6] = lines[6]!.replace('"content":', '"text":')
    lines[8] = lines[8]!.slice(0, -2)
    lines.push(JSON.stringify({mark: a, set: {tags: 'not a list'}}), '{"hello":"world"}')
    writeLines(journal(), lines)

    const plan = mem(home.home, ['doctor'])
    assert.equal(plan.code, 1)
    const problem = plan.stdout.split('\n').find((l) => l.includes('cannot be used'))!
    for (const why of [
      'line 6 is not valid JSON',
      'the record added on line 7 does not decode (content: ',
      'line 9 is not valid JSON',
      'the change on line 11 does not decode (tags: ',
      'and 1 more. With them go the lines that depend on them: ',
      `line 8 says fact ${c} was replaced by ${c2}, which no segment of this agent holds, so it hides the fact with nothing in its place`,
      `line 10 marks fact ${e}, which neither 000001.json nor a line kept before it adds`,
    ])
      assert.ok(problem.includes(why), `${why}\nin: ${problem}`)

    const fixed = report(['--fix'])
    assert.equal(fixed.code, 0, fixed.stdout)
    assert.deepEqual(fixed.report.problems[0]!.set_aside?.lines, [6, 7, 8, 9, 10, 11, 12])
    assert.equal(fixed.report.problems[0]!.set_aside?.kept, 4)
    assert.deepEqual(readFileSync(asideFiles()[0]!, 'utf8'), lines.slice(5).join('\n') + '\n')
    // Beta's deletion and gamma's replacement were set aside: both read as they were before them.
    assert.deepEqual((await liveContents()).sort(), ['alpha', 'beta', 'delta', 'gamma', 'zero, in the JSON file'])
    assert.equal(mem(home.home, ['doctor']).code, 0)
  })

  it("a replacement added in another segment's journal: the mark in the older one is set aside with it, so the old fact is live again", async () => {
    const store = new FileStore(home.home)
    // A full first segment (1,000 facts), written whole by an import; the next add opens the second.
    await store.importRecords('alice', {
      facts: Array.from({length: 1000}, (_, i) => ({
        id: `01JAAAAAAA${String(i).padStart(16, '0')}`,
        content: `imported ${i}`,
        tags: [],
        created_at: '2026-01-01T00:00:00.000Z',
      })),
      checkpoints: [],
    })
    await store.addFact('alice', {content: 'opens the second segment', tags: []})
    const old = '01JAAAAAAA0000000000000007'
    const next = (await store.supersede('alice', [old], {content: 'imported 7, corrected', tags: []})).id
    const second = journal('alice', 'facts', '000002')
    const first = journal('alice', 'facts', '000001')
    assert.equal(linesOf(second).length, 2, "the replacement's add is in the second segment's journal")
    assert.ok(linesOf(first)[1]!.includes(`"superseded_by":"${next}"`), 'the mark is in the first segment’s journal')
    const damaged = linesOf(second)
    damaged[1] = damaged[1]!.replace('"content":', '"contents":')
    writeLines(second, damaged)

    const fixed = report(['--fix'])
    assert.equal(fixed.code, 0, fixed.stdout)
    assert.deepEqual(
      fixed.report.problems.map((p) => [p.path, p.set_aside?.lines]),
      [
        [first, [2]],
        [second, [2]],
      ],
    )
    assert.match(fixed.report.problems[0]!.problem, new RegExp(`^line 2 says fact ${old} was replaced by ${next}`))
    const live = await liveContents()
    assert.ok(live.includes('imported 7'), 'the old fact is live again, not hidden behind a replacement set aside')
    assert.equal(live.length, 1001)
    assert.equal(mem(home.home, ['doctor']).code, 0)
  })

  it('a first line that is no header gets a new one and every change is kept; a journal of another agent is left, and the hint says what to do', async () => {
    const store = new FileStore(home.home)
    for (const content of ['one', 'two', 'three']) await store.addFact('alice', {content, tags: []})
    await store.addFact('bob', {content: "bob's first", tags: []})
    await store.addFact('bob', {content: "bob's second", tags: []})
    const lines = linesOf(journal())

    writeLines(journal(), ['{"format":"mem.facts.chan', ...lines.slice(1)])
    let fixed = report(['--fix'])
    assert.equal(fixed.code, 0, fixed.stdout)
    assert.match(
      fixed.report.problems[0]!.fix,
      /^kept 2 changes under a new header line and set aside 1 line \(line 1\) in /,
    )
    assert.deepEqual(linesOf(journal()), lines, 'the new header is the one mem writes')

    // The header gone altogether: nothing to set aside, so no file is made.
    writeLines(journal(), lines.slice(1))
    fixed = report(['--fix'])
    assert.equal(fixed.code, 0, fixed.stdout)
    assert.equal(fixed.report.problems[0]!.fix, 'kept 2 changes under a new header line')
    assert.equal(asideFiles().length, 1)
    assert.deepEqual(await liveContents(), ['one', 'two', 'three'])

    copyFileSync(journal('bob'), journal())
    const before = snapshot(home.home)
    const r = mem(home.home, ['list', '-a', 'alice', '--json'])
    assert.equal(r.code, 1)
    assert.match(
      r.stdout,
      /it belongs to agent \\"bob\\" but lies in the folder of agent \\"alice\\"\. It was left untouched\. Move it out of the folder to give up its changes, or put it back where it belongs/,
    )
    const left = report(['--fix'])
    assert.equal(left.code, 1)
    assert.deepEqual(
      left.report.problems.map((p) => [p.path, p.fixed]),
      [[journal(), false]],
    )
    assert.match(left.report.problems[0]!.fix, /^it is not this segment's journal, so --fix leaves it/)
    assert.deepEqual(snapshot(home.home), before)
  })

  it('checkpoint journals get the same repair', async () => {
    const store = new FileStore(home.home)
    for (let step = 1; step <= 4; step++) await store.saveCheckpoint('alice', {state: {step}})
    const lines = linesOf(journal('alice', 'checkpoints'))
    const damaged = [...lines]
    damaged[2] = damaged[2]!.replace('"state":{', '"state":[')
    writeLines(journal('alice', 'checkpoints'), damaged)
    assert.match(mem(home.home, ['resume', '-a', 'alice']).stderr, /checkpoints\/000001\.jsonl cannot be used/)
    const fixed = report(['--fix'])
    assert.equal(fixed.code, 0, fixed.stdout)
    assert.deepEqual(fixed.report.problems[0]!.set_aside?.lines, [3])
    assert.equal(readFileSync(asideFiles(folder('alice', 'checkpoints'))[0]!, 'utf8'), `${damaged[2]}\n`)
    const steps = (await readBack(home.home, 'alice')).checkpoints.map((c) => c.state.step as number)
    assert.deepEqual(
      steps.sort((x, y) => x - y),
      [1, 2, 4],
    )
    const resumed = JSON.parse(mem(home.home, ['resume', '-a', 'alice', '--json']).stdout) as {state: {step: number}}
    assert.equal(resumed.state.step, 4)
  })

  it('a torn last line is no problem, but doctor says once that mem leaves it out instead of "Everything is in order"', async () => {
    const store = new FileStore(home.home)
    for (const content of ['one', 'two']) await store.addFact('alice', {content, tags: []})
    writeFileSync(
      journal(),
      readFileSync(journal('alice')).toString() + '{"add":{"id":"01JAAAAAAAAAAAAAAAAAAAAAAA","con',
    )
    const r = mem(home.home, ['doctor'])
    assert.equal(r.code, 0, r.stdout)
    assert.equal(r.stdout.split('\n').filter((l) => l.startsWith('[note]')).length, 1, 'said once, for the one journal')
    assert.ok(
      r.stdout.includes(
        `[note] ${journal()}\n  its last line was never finished (a write that stopped part way, so it was never acknowledged): mem leaves it out when reading, and the next write to this segment cuts it off.\n\nEverything else is in order.\n`,
      ),
      r.stdout,
    )
    const json = report([])
    assert.deepEqual(json.report.problems, [])
    assert.deepEqual(
      json.report.notes?.map((n) => [n.kind, n.path]),
      [['torn_line', journal()]],
    )
    // With damage, --fix sets the unfinished line aside too, after the lines it sets aside.
    const lines = linesOf(journal())
    const tail = '{"add":{"id":"01JAAAAAAAAAAAAAAAAAAAAAAA","con'
    assert.equal(lines.length, 2, 'the header and the add of "two" ("one" is in the JSON file)')
    writeFileSync(journal(), [lines[0], 'nonsense', lines[1]].join('\n') + '\n' + tail)
    const fixed = report(['--fix'])
    assert.equal(fixed.code, 0, fixed.stdout)
    assert.match(fixed.report.problems[0]!.fix, /set aside 1 line \(line 2\) and its unfinished last line in /)
    assert.equal(readFileSync(asideFiles()[0]!, 'utf8'), `nonsense\n${tail}\n`)
    assert.deepEqual(
      report([]).report.notes?.map((n) => n.kind),
      ['set_aside_file'],
    )
    assert.equal(mem(home.home, ['add', 'three', '-a', 'alice']).code, 0)
    assert.deepEqual(await liveContents(), ['one', 'two', 'three'])
  })

  describe('a repair killed at any step, or failing on a full disk, loses nothing', () => {
    /** Three facts, the middle one's line damaged; returns the journal's lines as damaged. */
    async function damagedJournal(): Promise<string[]> {
      const store = new FileStore(home.home)
      for (const content of ['zero', 'one', 'two', 'three']) await store.addFact('alice', {content, tags: []})
      const lines = linesOf(journal())
      lines[2] = lines[2]!.replace('"content":"two"', '"content":2')
      writeLines(journal(), lines)
      return lines
    }

    async function finishedWell(lines: string[]): Promise<void> {
      const fixed = mem(home.home, ['doctor', '--fix'])
      assert.equal(fixed.code, 0, fixed.stdout)
      const files = asideFiles()
      assert.equal(files.length, 1, `one file of lines set aside: ${files.join(', ')}`)
      assert.equal(readFileSync(files[0]!, 'utf8'), `${lines[2]}\n`)
      assert.deepEqual(linesOf(journal()), [lines[0], lines[1], lines[3]])
      assert.deepEqual(await liveContents(), ['zero', 'one', 'three'])
      const clean = report([])
      assert.equal(clean.code, 0, clean.stdout)
      assert.deepEqual(clean.report.problems, [], 'no temporary file is left')
    }

    // The repair's system calls in order: the lines set aside written to a temporary file and
    // flushed (fsync 1), linked under their name, the folder flushed (fsync 2); the journal's
    // lines kept written to a temporary file and flushed (fsync 3), renamed over it, the folder flushed (fsync 4).
    for (const {when, inject} of [
      {when: 'while the lines set aside are flushed', inject: 'fsync:error=EIO:signal=KILL:when=1'},
      {when: 'before the lines set aside get their name', inject: 'link:error=EIO:signal=KILL:when=1'},
      {when: 'once they have it, before the journal is replaced', inject: 'rename:error=EIO:signal=KILL:when=1'},
      {
        when: 'after the journal is replaced, before its folder is flushed',
        inject: 'fsync:error=EIO:signal=KILL:when=4',
      },
    ])
      it(`SIGKILL ${when}: every line is in the journal or set aside, and the next --fix ends with one file of them`, async () => {
        const lines = await damagedJournal()
        const syscall = inject.split(':')[0]!
        const prefix = ['strace', '-f', '-qq', '-o', '/dev/null', '-e', `trace=${syscall}`, '-e', `inject=${inject}`]
        const killed = await startMem(home.home, ['doctor', '--fix'], {prefix}).done
        // strace ends as its tracee did: by SIGKILL (128 from startMem) or with its status (137).
        assert.ok([128, 137].includes(killed.code), `killed by the injected SIGKILL: ${killed.stdout}${killed.stderr}`)
        const held = [...linesOf(journal()), ...asideFiles().flatMap(linesOf)]
        for (const line of lines) assert.ok(held.includes(line), `a line is lost: ${line}`)
        await finishedWell(lines)
      })

    for (const nth of [1, 3])
      it(`ENOSPC on fsync ${nth}: the repair fails saying so, leaves no file behind, and succeeds once there is room`, async () => {
        const lines = await damagedJournal()
        const before = snapshot(home.home)
        for (let attempt = 0; attempt < 2; attempt++) {
          const r = await startMem(home.home, ['doctor', '--fix'], {prefix: failing('fsync', 'ENOSPC', nth)}).done
          assert.equal(r.code, 1, r.stdout)
          assert.match(
            r.stdout,
            /NOT FIXED.*\n.*\n {2}To do: keep 2 changes .*\(failed: could not write .*no space left on device \(ENOSPC\)\)/,
          )
          assert.deepEqual(snapshot(home.home), before, 'every file as it was, and none added')
        }
        await finishedWell(lines)
      })
  })
})
