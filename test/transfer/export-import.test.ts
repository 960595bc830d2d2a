import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {existsSync, readdirSync, readFileSync, statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

import {jsonSchemaOf} from '../../src/mcp/tools.js'
import {ExportSummary} from '../../src/transfer/export.js'
import {ImportReport} from '../../src/transfer/import.js'
import {BIN, childEnv, mem, memAsync, tempHome} from '../helpers/mem.js'
import {validateAgainst} from '../helpers/schema.js'
import {json, lines, ok, seed, snapshot} from './helpers.js'

const FACT = {type: 'fact', agent_id: 'carol', tags: [], created_at: '2026-01-31T09:15:00.000Z'}

function factLine(id: string, content: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({...FACT, id, content, ...extra})
}

describe('mem export and mem import (built binary, real files)', () => {
  let homes: ReturnType<typeof tempHome>[] = []
  const home = (): string => {
    const h = tempHome()
    homes.push(h)
    return h.home
  }
  // One seeded store serves every test that only reads it: each mem run is a process start.
  let seeded: ReturnType<typeof tempHome>
  let ids: {alice: string[]; bob: string[]}
  let exported: string
  before(() => {
    seeded = tempHome()
    ids = seed(seeded.home)
    exported = ok(seeded.home, ['export', '--all']).stdout
  })
  after(() => seeded.cleanup())
  afterEach(() => {
    for (const h of homes) h.cleanup()
    homes = []
  })

  it('exports a header, then every fact with its history and every checkpoint, one JSON object a line', () => {
    const src = seeded.home
    const r = ok(src, ['export', '--all'])
    assert.equal(r.stderr, '', 'nothing but the lines when piped')
    const out = lines(r.stdout)
    assert.deepEqual(out[0] && {type: out[0].type, format: out[0].format, version: out[0].version}, {
      type: 'header',
      format: 'mem.export',
      version: 1,
    })
    const facts = out.filter((l) => l.type === 'fact')
    assert.deepEqual(
      facts.map((f) => [f.agent_id, f.id]),
      [
        ['alice', ids.alice[0]],
        ['alice', ids.alice[1]],
        ['alice', ids.alice[2]],
        ['bob', ids.bob[0]],
      ],
    )
    assert.equal(facts[0]!.superseded_by, ids.alice[2])
    assert.deepEqual(facts[2]!.supersedes, [ids.alice[0]])
    assert.equal(facts[1]!.reason, 'moved to Wednesdays')
    assert.match(String(facts[1]!.deleted_at), /Z$/)
    const cps = out.filter((l) => l.type === 'checkpoint')
    assert.deepEqual(
      cps.map((c) => [c.agent_id, c.label ?? null, c.state]),
      [
        ['alice', 'first', {step: 1}],
        ['alice', null, {step: 2, todo: ['ship']}],
      ],
    )
    assert.deepEqual(cps[1]!.messages, [{role: 'user', content: 'hi'}])

    const one = lines(ok(src, ['export', '--agent', 'bob']).stdout)
    assert.deepEqual(
      one.slice(1).map((l) => l.content),
      ['Likes green tea'],
    )
    assert.equal(lines(ok(src, ['export'], {env: {MEM_AGENT: 'bob'}}).stdout).length, 2)
  })

  it('round-trips: import into an empty store, export again, same records', () => {
    const src = seeded.home
    const file = join(home(), 'backup.jsonl')
    const summary = json(ok(src, ['export', '--all', '-o', file, '--json']))
    assert.deepEqual(
      {facts: summary.facts, checkpoints: summary.checkpoints, file: summary.file},
      {facts: 4, checkpoints: 2, file},
    )
    assert.equal(statSync(file).mode & 0o777, 0o600)
    assert.equal(validateAgainst(jsonSchemaOf(ExportSummary), summary), undefined)

    const dst = home()
    const report = json(ok(dst, ['import', file, '--json']))
    assert.deepEqual(report.added, {facts: 4, checkpoints: 2})
    assert.deepEqual(report.rejected, [])
    assert.equal(validateAgainst(jsonSchemaOf(ImportReport), report), undefined, 'the documented shape')
    assert.deepEqual(report.agents, [
      {agent_id: 'alice', facts: 3, checkpoints: 2},
      {agent_id: 'bob', facts: 1, checkpoints: 0},
    ])
    const records = (text: string): Record<string, unknown>[] => lines(text).filter((l) => l.type !== 'header')
    assert.deepEqual(records(ok(dst, ['export', '--all']).stdout), records(readFileSync(file, 'utf8')))

    // History survives: only the live fact is found, and the latest checkpoint resumes.
    const found = json<{facts: {content: string}[]}>(
      ok(dst, ['search', 'package manager', '--agent', 'alice', '--json']),
    )
    assert.deepEqual(
      found.facts.map((f) => f.content),
      ['Prefers bun as package manager'],
    )
    assert.deepEqual(json(ok(dst, ['resume', '--agent', 'alice', '--json'])).state, {step: 2, todo: ['ship']})
  })

  it('importing the same file twice adds nothing the second time and lists what it skipped', () => {
    const text = exported
    const dst = home()
    ok(dst, ['import', '-'], {input: text})
    const before = snapshot(dst)
    const again = json<{added: unknown; skipped: {line: number; message: string}[]}>(
      ok(dst, ['import', '-', '--json'], {input: text}),
    )
    assert.deepEqual(again.added, {facts: 0, checkpoints: 0})
    assert.deepEqual(
      again.skipped.map((s) => s.line),
      [2, 3, 4, 5, 6, 7],
    )
    assert.match(again.skipped[0]!.message, /already has fact/)
    assert.deepEqual(snapshot(dst), before)
    assert.match(
      ok(dst, ['import', '-'], {input: text}).stdout,
      /Imported 0 facts and 0 checkpoints\.\nSkipped 6 records already present: lines 2, 3, 4, 5, 6, 7\./,
    )
  })

  it('rejects the whole file when any line is wrong, naming each line, and changes nothing', () => {
    const dst = home()
    ok(dst, ['add', 'Already here', '--agent', 'carol'])
    const before = snapshot(dst)
    const input = [
      factLine('01JDQ3N7X2C9V5K8M4T6R0B1AZ', 'A good fact'),
      '{not json',
      '',
      JSON.stringify({type: 'note', text: 'x'}),
      factLine('01JDQ3N7X2C9V5K8M4T6R0B1A', 'Short id'),
      factLine('01JDQ3P0A7Z3Y1X9W5V2T8S4RQ', 'x'.repeat(16_001)),
      factLine('01JDQ3P0A7Z3Y1X9W5V2T8S4RR', 'Bad tag', {tags: ['two words']}),
      factLine('01JDQ3P0A7Z3Y1X9W5V2T8S4RS', 'Bad time', {created_at: 'yesterday'}),
      factLine('01JDQ3P0A7Z3Y1X9W5V2T8S4RT', 'Extra key', {colour: 'red'}),
      factLine('01JDQ3N7X2C9V5K8M4T6R0B1AZ', 'Same id, other text'),
      JSON.stringify({
        type: 'checkpoint',
        agent_id: 'carol',
        id: '01JDQ3P0A7Z3Y1X9W5V2T8S4RV',
        created_at: '2026-01-31T09:15:00.000Z',
        state: [1],
      }),
      factLine('01JDQ3P0A7Z3Y1X9W5V2T8S4RW', 'Bad agent', {agent_id: '../etc'}),
      factLine('01JDQ3P0A7Z3Y1X9W5V2T8S4RX', 'No time', {created_at: undefined}),
      factLine('01JDQ3P0A7Z3Y1X9W5V2T8S4RY', 'Empty tag', {tags: ['']}),
    ].join('\n')
    const r = mem(dst, ['import', '-'], {input})
    assert.equal(r.code, 2)
    assert.equal(r.stdout, '')
    assert.match(r.stderr, /12 lines rejected; nothing was imported/)
    for (const n of [2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]) assert.match(r.stderr, new RegExp(`line ${n}: `))
    assert.doesNotMatch(r.stderr, /line 1: /)
    assert.deepEqual(snapshot(dst), before)

    const j = mem(dst, ['import', '-', '--json'], {input})
    assert.equal(j.code, 2)
    const error = json<{error: {code: string; rejected: {line: number; message: string}[]}}>(j).error
    assert.equal(error.code, 'invalid_input')
    const byLine = Object.fromEntries(error.rejected.map((x) => [x.line, x.message]))
    assert.match(byLine[2]!, /not valid JSON/)
    assert.match(byLine[4]!, /"type" is header, fact or checkpoint/)
    assert.match(byLine[5]!, /id: must be a 26-character fact id/)
    assert.match(byLine[6]!, /content: must be at most 16000 characters/)
    assert.match(byLine[7]!, /tags\.0: a tag must not contain spaces/)
    assert.match(byLine[8]!, /created_at: must be an ISO 8601 time/)
    assert.match(byLine[9]!, /^fact: unknown key "colour"; a fact line takes id, content, tags, created_at\b/)
    assert.match(byLine[10]!, /already given on line 1 with different content/)
    assert.match(byLine[11]!, /state: must be a JSON object/)
    assert.match(byLine[12]!, /agent_id: may use letters/)
    // In words, never the validator's ("Invalid key: Expected …"), and an empty tag is only said to be empty.
    assert.equal(byLine[13], 'fact: created_at is required')
    assert.equal(byLine[14], 'fact: tags.0: a tag must not be empty')
    assert.deepEqual(snapshot(dst), before)
  })

  it('--skip-invalid imports the good lines and still reports the rejected ones', () => {
    const dst = home()
    const input = [
      factLine('01JDQ3N7X2C9V5K8M4T6R0B1AZ', 'A good fact'),
      '{not json',
      factLine('01JDQ3P0A7Z3Y1X9W5V2T8S4RQ', 'Another good fact'),
    ].join('\n')
    const report = json<{added: unknown; rejected: {line: number}[]}>(
      ok(dst, ['import', '-', '--skip-invalid', '--json'], {input}),
    )
    assert.deepEqual(report.added, {facts: 2, checkpoints: 0})
    assert.deepEqual(
      report.rejected.map((r) => r.line),
      [2],
    )
    assert.equal(json(ok(dst, ['search', 'good fact', '--agent', 'carol', '--json'])).count, 2)
  })

  it('refuses a record whose id is already stored with different content', () => {
    const dst = home()
    const id = json<{fact_id: string}>(ok(dst, ['add', 'Original text', '--agent', 'carol', '--json'])).fact_id
    const before = snapshot(dst)
    const r = mem(dst, ['import', '-'], {input: factLine(id, 'Changed text')})
    assert.equal(r.code, 2)
    assert.match(r.stderr, new RegExp(`line 1: agent carol already has fact ${id} and it differs`))
    assert.deepEqual(snapshot(dst), before)
  })

  it('a newer export of the same memory brings its later history: replaced and deleted facts follow', () => {
    const src = home()
    const first = json<{fact_id: string}>(ok(src, ['add', 'Uses npm', '--agent', 'dana', '--json'])).fact_id
    const second = json<{fact_id: string}>(ok(src, ['add', 'Works from Lisbon', '--agent', 'dana', '--json'])).fact_id
    const early = ok(src, ['export', '--agent', 'dana']).stdout
    const dst = home()
    ok(dst, ['import', '-'], {input: early})

    const third = json<{fact_id: string}>(
      ok(src, ['reflect', 'update', '--fact', first, '--content', 'Uses pnpm', '--agent', 'dana', '--json']),
    ).fact_id
    ok(src, ['reflect', 'delete', '--fact', second, '--agent', 'dana'])
    const later = ok(src, ['export', '--agent', 'dana']).stdout
    const report = json<{added: unknown; updated: {line: number; message: string}[]; rejected: unknown[]}>(
      ok(dst, ['import', '-', '--json'], {input: later}),
    )
    assert.deepEqual(report.rejected, [])
    assert.deepEqual(report.added, {facts: 1, checkpoints: 0})
    assert.deepEqual(
      report.updated.map((u) => u.line),
      [2, 3],
    )
    assert.match(report.updated[0]!.message, new RegExp(`fact ${first} of agent dana was replaced by ${third}`))
    assert.match(report.updated[1]!.message, /was deleted since it was stored/)
    const records = (text: string): unknown[] => lines(text).slice(1)
    assert.deepEqual(records(ok(dst, ['export', '--agent', 'dana']).stdout), records(later))
    assert.deepEqual(
      json<{facts: {id: string}[]}>(ok(dst, ['search', 'uses npm pnpm lisbon', '--agent', 'dana', '--json'])).facts.map(
        (f) => f.id,
      ),
      [third],
    )

    // The older export again changes nothing: the store's history is later.
    const before = snapshot(dst)
    const stale = json<{added: unknown; updated: unknown[]; skipped: {message: string}[]}>(
      ok(dst, ['import', '-', '--json'], {input: early}),
    )
    assert.deepEqual([stale.added, stale.updated], [{facts: 0, checkpoints: 0}, []])
    assert.match(stale.skipped[0]!.message, /replaced or deleted since/)
    assert.deepEqual(snapshot(dst), before)
  })

  it('--dry-run reports what would be added and writes nothing', () => {
    const text = exported
    const dst = home()
    const r = ok(dst, ['import', '-', '--dry-run'], {input: text})
    assert.match(r.stdout, /^Would import 4 facts and 2 checkpoints/)
    assert.match(r.stdout, /Dry run: nothing was changed\./)
    assert.deepEqual(snapshot(dst), {})
    assert.deepEqual(json(ok(dst, ['import', '-', '--dry-run', '--json'], {input: text})).added, {
      facts: 4,
      checkpoints: 2,
    })
  })

  it('refuses a file from a newer format version before reading further', () => {
    const dst = home()
    const input = [
      JSON.stringify({type: 'header', format: 'mem.export', version: 2}),
      factLine('01JDQ3N7X2C9V5K8M4T6R0B1AZ', 'x'),
    ].join('\n')
    const r = mem(dst, ['import', '-', '--skip-invalid'], {input})
    assert.equal(r.code, 1)
    assert.match(r.stderr, /version 2, written by a newer mem; this mem reads up to version 1/)
    assert.deepEqual(snapshot(dst), {})
  })

  it('--agent moves every record into one agent, keeping ids', () => {
    const dst = home()
    ok(dst, ['import', '-', '--agent', 'zed'], {input: ok(seeded.home, ['export', '--agent', 'bob']).stdout})
    const out = lines(ok(dst, ['export', '--all']).stdout).slice(1)
    assert.deepEqual(
      out.map((l) => [l.agent_id, l.id]),
      [['zed', ids.bob[0]]],
    )
  })

  it('an unknown agent is a not-found error (exit 3)', () => {
    const src = seeded.home
    const r = mem(src, ['export', '--agent', 'alcie'])
    assert.equal(r.code, 3)
    assert.match(r.stderr, /No agent "alcie" found in this store; agents: alice, bob/)
    assert.equal(mem(src, ['export', '--agent', 'bob', '--all']).code, 2)
  })

  it('a missing file or a bad agent id is a clear input error (exit 2)', () => {
    const dst = home()
    const r = mem(dst, ['import', '/nonexistent/file.jsonl'])
    assert.equal(r.code, 2)
    assert.equal(
      r.stderr,
      'Error: cannot read the import from /nonexistent/file.jsonl: no such file or folder (ENOENT)\n',
    )
    const folder = mem(dst, ['import', dst])
    assert.equal(folder.code, 2)
    assert.equal(folder.stderr, `Error: cannot read the import from ${dst}: it is a folder (EISDIR)\n`)
    const badAgent = mem(dst, ['import', '-', '--agent', '../etc'], {
      input: factLine('01JDQ3N7X2C9V5K8M4T6R0B1AZ', 'x'),
    })
    assert.equal(badAgent.code, 2)
    assert.match(badAgent.stderr, /--agent: may use letters/)
    assert.equal(mem(dst, ['export', '--agent', '../etc']).code, 2)
    assert.deepEqual(snapshot(dst), {})
  })

  it('imports while other processes add facts, losing none', async () => {
    const dst = home()
    const file = join(dst, 'many.jsonl')
    const base = Date.parse('2026-01-01T00:00:00.000Z')
    const many = Array.from({length: 3000}, (_, i) =>
      factLine(ulidAt(base + i, i), `Imported fact number ${i}`, {created_at: new Date(base + i).toISOString()}),
    )
    writeFileSync(file, many.join('\n'))
    const adds = Array.from({length: 6}, (_, i) => memAsync(dst, ['add', `Concurrent fact ${i}`, '--agent', 'carol']))
    const [imported, ...added] = await Promise.all([memAsync(dst, ['import', file, '--json']), ...adds])
    assert.equal(imported.code, 0, imported.stderr)
    assert.equal(imported.stderr, '', 'no progress bar when stderr is not a terminal')
    for (const r of added) assert.equal(r.code, 0, r.stderr)
    assert.deepEqual(json(imported).added, {facts: 3000, checkpoints: 0})
    const all = lines(ok(dst, ['export', '--agent', 'carol']).stdout).slice(1)
    assert.equal(all.length, 3006)
    assert.equal(new Set(all.map((l) => l.id)).size, 3006)
    assert.equal(
      json(ok(dst, ['search', 'Imported fact number 2999', '--agent', 'carol', '--limit', '1', '--json'])).count,
      1,
    )
  })

  it('an import of many batches and segments is searchable afterwards, every fact of it, and skipped whole the second time', () => {
    const dst = home()
    const file = join(dst, 'many.jsonl')
    const base = Date.parse('2026-01-01T00:00:00.000Z')
    // Many write batches (1,000 records each) and a dozen segments, each let go of once written.
    const count = 12_500
    const word = (i: number): string =>
      `zq${i.toString(26).replace(/./g, (c) => String.fromCharCode(97 + parseInt(c, 26)))}`
    const many = Array.from({length: count}, (_, i) =>
      factLine(ulidAt(base + i, i), `Imported fact ${word(i)} about the archive`, {
        created_at: new Date(base + i).toISOString(),
      }),
    )
    writeFileSync(file, many.join('\n'))
    assert.deepEqual(json(ok(dst, ['import', file, '--json'])).added, {facts: count, checkpoints: 0})
    const agent = join(dst, 'agents', 'carol')
    assert.ok(readdirSync(join(agent, 'facts')).filter((n) => n.endsWith('.json')).length >= 12)
    assert.equal(statSync(join(agent, 'cache', 'search-index.bin')).mode & 0o777, 0o600)
    for (const i of [0, 999, 1000, 9999, 10_000, count - 1]) {
      const found = json<{facts: {id: string}[]}>(
        ok(dst, ['search', word(i), '--agent', 'carol', '--limit', '1', '--json']),
      )
      assert.deepEqual(
        found.facts.map((f) => f.id),
        [ulidAt(base + i, i)],
        `fact ${i} is found`,
      )
    }
    const repeated = ok(dst, ['import', file, '--json'])
    const again = json<{added: unknown; skipped: unknown[]}>(repeated)
    assert.deepEqual(again.added, {facts: 0, checkpoints: 0})
    assert.equal(again.skipped.length, count)
    // A report of a megabyte goes out in pieces, and still as one line of JSON, byte for byte.
    assert.equal(repeated.stdout, `${JSON.stringify(again)}\n`)
    const out = join(dst, 'out.jsonl')
    ok(dst, ['export', '--agent', 'carol', '-o', out])
    const all = lines(readFileSync(out, 'utf8')).slice(1)
    assert.equal(all.length, count)
    assert.equal(new Set(all.map((l) => l.id)).size, count)
  })

  it('an import killed part way, then run again, stores every fact once, in files only its user can read', async () => {
    const dst = home()
    const file = join(dst, 'many.jsonl')
    const base = Date.parse('2026-01-01T00:00:00.000Z')
    const count = 25_000
    const many = Array.from({length: count}, (_, i) =>
      factLine(ulidAt(base + i, i), `Killed import fact ${i}`, {created_at: new Date(base + i).toISOString()}),
    )
    writeFileSync(file, many.join('\n'))
    const facts = join(dst, 'agents', 'carol', 'facts')
    const child = spawn(process.execPath, [BIN, 'import', file, '--json'], {env: childEnv(dst), stdio: 'ignore'})
    const exited = new Promise((done) => child.on('exit', done))
    // Killed once the first batch's segments are in place, while the later batches are still to come.
    const segments = () => (existsSync(facts) ? readdirSync(facts).filter((n) => n.endsWith('.json')).length : 0)
    while (child.exitCode === null && segments() === 0) await sleep(10)
    assert.equal(child.exitCode, null, 'the import was still running when killed')
    child.kill('SIGKILL')
    await exited
    const stored = segments()
    assert.ok(stored > 0 && stored < count / 1000, `${stored} segments written before the kill`)

    const again = json<{added: {facts: number}; skipped: unknown[]}>(ok(dst, ['import', file, '--json']))
    assert.equal(again.added.facts + again.skipped.length, count)
    const out = join(dst, 'out.jsonl')
    ok(dst, ['export', '--agent', 'carol', '-o', out])
    const all = lines(readFileSync(out, 'utf8')).slice(1)
    assert.equal(all.length, count)
    assert.equal(new Set(all.map((l) => l.id)).size, count)
    assert.equal(
      json(ok(dst, ['search', 'Killed import fact 24999', '--agent', 'carol', '--limit', '1', '--json'])).count,
      1,
    )
    const agent = join(dst, 'agents', 'carol')
    for (const folder of [facts, join(agent, 'cache')])
      for (const name of readdirSync(folder))
        assert.equal(statSync(join(folder, name)).mode & 0o777, 0o600, `${folder}/${name} is 0600`)
  })
})

/** A valid ULID for a given time whose random part is a counter, so tests are repeatable. */
function ulidAt(time: number, n: number): string {
  const alphabet = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'
  let t = ''
  for (let i = 0, x = time; i < 10; i++, x = Math.floor(x / 32)) t = alphabet[x % 32] + t
  let r = ''
  for (let i = 0, x = n; i < 16; i++, x = Math.floor(x / 32)) r = alphabet[x % 32] + r
  return t + r
}

describe('resume after importing an older checkpoint', () => {
  it('still returns the newest checkpoint, not the one stored last', () => {
    const h = tempHome()
    try {
      const older = JSON.stringify({
        type: 'checkpoint',
        agent_id: 'dora',
        id: '01HZZZZZZZZZZZZZZZZZZZZZZZ',
        created_at: '2024-06-01T00:00:00.000Z',
        state: {step: 'old'},
      })
      const saved = ok(h.home, ['save', '--agent', 'dora', '--state', '{"step":"new"}', '--json'])
      writeFileSync(join(h.home, 'older.jsonl'), `${older}\n`)
      ok(h.home, ['import', join(h.home, 'older.jsonl')])
      const resumed = json(ok(h.home, ['resume', '--agent', 'dora', '--json']))
      assert.equal(resumed.id, json(saved).checkpoint_id)
      assert.deepEqual(resumed.state, {step: 'new'})
    } finally {
      h.cleanup()
    }
  })
})
