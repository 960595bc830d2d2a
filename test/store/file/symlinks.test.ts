import assert from 'node:assert/strict'
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {newId} from '../../../src/store/ids.js'
import {mem, tempHome} from '../../helpers/mem.js'
import {json, lines, ok} from '../../transfer/helpers.js'

interface Report {
  ok: boolean
  checked: {agents: number; files: number}
  problems: {kind: string; path: string; problem: string; fix: string; fixed: boolean}[]
}

/** 1,000 facts imported into `agent`: the search layer saves an index from that many on (none for fewer). */
function importFiller(home: string, agent: string): void {
  const file = join(home, 'filler.jsonl')
  const start = Date.UTC(2025, 0, 1)
  const facts = Array.from({length: 1000}, (_, i) =>
    JSON.stringify({
      type: 'fact',
      agent_id: agent,
      id: newId(start + i * 1000),
      content: `filler note ${i}`,
      tags: [],
      created_at: new Date(start + i * 1000).toISOString(),
    }),
  )
  writeFileSync(file, `${facts.join('\n')}\n`)
  ok(home, ['import', file, '--agent', agent])
  rmSync(file)
}

function doctor(home: string, fix = false): {code: number; report: Report} {
  const r = mem(home, ['doctor', '--json', ...(fix ? ['--fix'] : [])])
  return {code: r.code, report: JSON.parse(r.stdout) as Report}
}

describe('symbolic links and debris in the home: the store, listings, backups and doctor agree', () => {
  let home: ReturnType<typeof tempHome>
  let outside: string

  beforeEach(() => {
    home = tempHome()
    outside = mkdtempSync(join(tmpdir(), 'mem-outside-'))
  })
  afterEach(() => {
    home.cleanup()
    rmSync(outside, {recursive: true, force: true})
  })

  const agentDir = (agent: string) => join(home.home, 'agents', agent)

  it('a linked agent folder is an agent everywhere: read, listed, backed up and checked by doctor', () => {
    ok(home.home, ['add', 'Lives on another disk', '--agent', 'alice'])
    ok(home.home, ['add', 'Stays home', '--agent', 'bob'])
    renameSync(agentDir('alice'), join(outside, 'alice'))
    symlinkSync(join(outside, 'alice'), agentDir('alice'))

    assert.match(ok(home.home, ['list', '--agent', 'alice']).stdout, /Lives on another disk/)
    ok(home.home, ['add', 'Written through the link', '--agent', 'alice'])
    assert.ok(lstatSync(agentDir('alice')).isSymbolicLink(), 'the link is still a link')
    const agents = json<{agents: {agent_id: string; facts: number}[]}>(ok(home.home, ['agents', '--json']))
    assert.deepEqual(
      agents.agents.map((a) => [a.agent_id, a.facts]),
      [
        ['alice', 2],
        ['bob', 1],
      ],
    )
    const backup = lines(ok(home.home, ['export', '--all']).stdout).filter((l) => l.type === 'fact')
    assert.deepEqual(backup.map((l) => l.agent_id).sort(), ['alice', 'alice', 'bob'])
    const {code, report} = doctor(home.home)
    assert.equal(code, 0, JSON.stringify(report.problems))
    // alice's facts are a JSON file and the journal of the add written through the link.
    assert.deepEqual(report.checked, {agents: 2, files: 3})
  })

  it('a link in agents/ that points to nothing is reported by doctor and is no agent', () => {
    ok(home.home, ['add', 'Real', '--agent', 'bob'])
    symlinkSync(join(outside, 'gone'), agentDir('ghost'))
    assert.deepEqual(
      json<{agents: {agent_id: string}[]}>(ok(home.home, ['agents', '--json'])).agents.map((a) => a.agent_id),
      ['bob'],
    )
    const {code, report} = doctor(home.home)
    assert.equal(code, 1)
    assert.equal(report.problems.length, 1)
    assert.equal(report.problems[0]!.kind, 'link')
    assert.equal(report.problems[0]!.path, agentDir('ghost'))
    assert.match(report.problems[0]!.problem, /points to nothing/)
  })

  it('a linked segment is refused by every operation, and doctor reports it in the same words', () => {
    importFiller(home.home, 'alice')
    ok(home.home, ['add', 'Soon behind a link', '--agent', 'alice'])
    // A saved search index made from the file must not vouch for the link to it.
    ok(home.home, ['search', 'link', '--agent', 'alice'])
    assert.ok(existsSync(join(agentDir('alice'), 'cache', 'search-index.bin')))
    const segment = join(agentDir('alice'), 'facts', '000001.json')
    const real = join(outside, 'real.json')
    renameSync(segment, real)
    symlinkSync(real, segment)
    const before = readFileSync(real, 'utf8')

    for (const args of [['list'], ['search', 'link'], ['add', 'more'], ['export']]) {
      const r = mem(home.home, [...args, '--agent', 'alice'])
      assert.equal(r.code, 1, `mem ${args.join(' ')}: ${r.stdout}`)
      assert.match(
        r.stderr,
        /000001\.json cannot be used: it is a symbolic link, and mem keeps its data files as regular files only/,
      )
    }
    assert.equal(readFileSync(real, 'utf8'), before, 'the file behind the link is untouched')
    assert.ok(lstatSync(segment).isSymbolicLink(), 'the link is untouched')

    const store = mem(home.home, ['list', '--agent', 'alice']).stderr
    for (const fix of [false, true]) {
      const {code, report} = doctor(home.home, fix)
      assert.equal(code, 1, 'doctor does not say everything is in order')
      assert.equal(
        report.checked.files,
        2,
        'the linked segment is counted as a data file, beside the one the add went to',
      )
      const found = report.problems.find((p) => p.path === segment)
      assert.ok(found, JSON.stringify(report.problems))
      assert.equal(found.kind, 'link')
      assert.equal(found.fixed, false, 'never repaired by guesswork')
      assert.ok(
        store.includes(found.problem),
        `the store's error and doctor's report agree:\n${store}\n${found.problem}`,
      )
      assert.ok(store.includes(found.fix), `and so does the way out:\n${store}\n${found.fix}`)
    }
    assert.equal(readFileSync(real, 'utf8'), before)
    assert.ok(lstatSync(segment).isSymbolicLink())
  })

  it('doctor reports the temporary files a killed cold search leaves in cache/, and --fix removes them', () => {
    ok(home.home, ['add', 'Searched', '--agent', 'alice'])
    const cache = join(agentDir('alice'), 'cache')
    mkdirSync(cache, {recursive: true})
    const debris = join(cache, 'search-index.bin.2147483646.0badf00d.tmp')
    writeFileSync(debris, Buffer.alloc(4096), {mode: 0o600})
    // Being written by a live process (this one): not debris yet.
    const inProgress = join(cache, `search-index.bin.${process.pid}.0ddba11.tmp`)
    writeFileSync(inProgress, 'x', {mode: 0o600})

    const {code, report} = doctor(home.home)
    assert.equal(code, 1)
    assert.deepEqual(
      report.problems.map((p) => [p.kind, p.path]),
      [['temp_file', debris]],
    )
    assert.match(report.problems[0]!.problem, /left by a search that stopped while saving the search index/)
    const fixed = doctor(home.home, true)
    assert.equal(fixed.code, 0, JSON.stringify(fixed.report.problems))
    assert.ok(!existsSync(debris))
    assert.ok(existsSync(inProgress), 'a file a live search is writing is left alone')
  })

  it('a linked cache/ folder gets no copy of the facts; doctor reports it and --fix removes the link', () => {
    importFiller(home.home, 'alice')
    ok(home.home, ['add', 'A fact about deploys', '--agent', 'alice'])
    const cache = join(agentDir('alice'), 'cache')
    assert.ok(existsSync(join(cache, 'search-index.bin')), 'an index was saved')
    rmSync(cache, {recursive: true, force: true})
    symlinkSync(outside, cache)

    assert.match(ok(home.home, ['search', 'deploys', '--agent', 'alice']).stdout, /A fact about deploys/)
    assert.match(ok(home.home, ['search', 'deploys', '--agent', 'alice', '--json']).stdout, /A fact about deploys/)
    assert.deepEqual(readdirSync(outside), [], 'nothing was written through the link')

    const {code, report} = doctor(home.home)
    assert.equal(code, 1)
    assert.deepEqual(
      report.problems.map((p) => [p.kind, p.path]),
      [['link', cache]],
    )
    assert.match(report.problems[0]!.problem, /symbolic link/)
    const fixed = doctor(home.home, true)
    assert.equal(fixed.code, 0, JSON.stringify(fixed.report.problems))
    assert.ok(!existsSync(cache), 'the link is gone')
    assert.deepEqual(readdirSync(outside), [], 'and what it pointed to is untouched')
    ok(home.home, ['search', 'deploys', '--agent', 'alice'])
    assert.ok(lstatSync(cache).isDirectory(), 'the next search saves its index in a folder of its own')
  })
})
