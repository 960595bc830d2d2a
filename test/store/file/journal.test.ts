import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {
  appendFileSync,
  copyFileSync,
  existsSync,
  readFileSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import {join} from 'node:path'

import {connectMcp} from '../../helpers/mcp.js'
import {BIN, childEnv, mem, tempHome, type RunResult} from '../../helpers/mem.js'
import {readBack, sha256, snapshot} from '../../reliability/files.js'
import {failing} from '../../torture/helpers.js'
import {FACT_SEGMENT} from '../../../src/store/file/collections.js'
import {FORMAT_VERSION} from '../../../src/store/file/format.js'
import {JOURNAL_MAX_BYTES} from '../../../src/store/file/journal.js'
import {agentDir} from '../../../src/store/file/paths.js'

/**
 * Segment journals (docs/adr/0005-segment-journals.md): an add appends one line beside its
 * segment instead of rewriting it, and every guarantee of a whole-file write still holds.
 */
describe('segment journals: an add appends a line, and loses nothing', function () {
  this.timeout(60_000)
  let home: ReturnType<typeof tempHome>
  beforeEach(() => {
    home = tempHome()
    ok(['add', 'the first fact', '-a', 's'])
  })
  afterEach(() => home.cleanup())

  const facts = () => join(agentDir(home.home, 's'), 'facts')
  const segment = () => join(facts(), '000001.json')
  const journal = () => join(facts(), '000001.jsonl')
  const contents = async (): Promise<string[]> => (await readBack(home.home, 's')).facts.map((f) => f.content)

  function ok(args: string[]): RunResult {
    const r = mem(home.home, args)
    assert.equal(r.code, 0, r.stdout + r.stderr)
    return r
  }

  function strace(prefix: string[], args: string[]): Promise<RunResult> {
    return new Promise((resolve, reject) => {
      const child = spawn(prefix[0]!, [...prefix.slice(1), process.execPath, BIN, ...args], {env: childEnv(home.home)})
      let stdout = ''
      let stderr = ''
      child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
      child.on('error', reject)
      child.on('close', (code) => resolve({code: code ?? -1, stdout, stderr}))
    })
  }

  it('an add leaves the JSON file as it was and appends one readable line to the journal; reflect appends marks', async () => {
    const before = readFileSync(segment())
    const added = JSON.parse(ok(['add', 'the second fact', '-a', 's', '--json']).stdout) as {fact_id: string}
    assert.deepEqual(readFileSync(segment()), before, 'the segment is not rewritten')
    ok(['reflect', 'delete', '-a', 's', '-f', added.fact_id])
    const lines = readFileSync(journal(), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
    assert.deepEqual(lines[0], {format: 'mem.facts.changes', version: 1, agent: 's', segment: '000001.json'})
    assert.equal((lines[1]!.add as {content: string}).content, 'the second fact')
    assert.equal(lines[2]!.mark, added.fact_id)
    assert.ok((lines[2]!.set as {deleted_at?: string}).deleted_at)
    assert.equal(statSync(journal()).mode & 0o777, 0o600)
    assert.deepEqual(await contents(), ['the first fact', 'the second fact'])
    const listed = JSON.parse(ok(['list', '-a', 's', '--json']).stdout) as {facts: {content: string}[]}
    assert.deepEqual(
      listed.facts.map((f) => f.content),
      ['the first fact'],
    )
    assert.equal(mem(home.home, ['doctor']).code, 0)
  })

  it('a torn last line (a write that died) is ignored by readers and cut off by the next writer', async () => {
    ok(['add', 'acknowledged', '-a', 's'])
    appendFileSync(journal(), '{"add":{"id":"01JAAAAAAAAAAAAAAAAAAAAAAA","content":"torn')
    assert.deepEqual(await contents(), ['the first fact', 'acknowledged'])
    assert.equal(mem(home.home, ['doctor']).code, 0, 'a torn line is not damage')
    ok(['add', 'after the tear', '-a', 's'])
    assert.deepEqual(await contents(), ['the first fact', 'acknowledged', 'after the tear'])
    assert.ok(!readFileSync(journal(), 'utf8').includes('torn'), 'the torn bytes were cut off')
    assert.ok(readFileSync(journal(), 'utf8').endsWith('\n'))
  })

  it('a full disk while appending (ENOSPC on the write or on its flush) leaves the journal byte for byte as it was', async () => {
    ok(['add', 'acknowledged', '-a', 's'])
    for (const syscall of ['write', 'fsync']) {
      const before = snapshot(home.home)
      const r = await strace(failing(syscall, 'ENOSPC', 1, journal()), [
        'add',
        `not saved (${syscall})`,
        '-a',
        's',
        '--json',
      ])
      assert.equal(r.code, 1, r.stdout)
      assert.match(r.stdout, /could not write \S+000001\.jsonl: no space left on device \(ENOSPC\); nothing was saved/)
      assert.deepEqual(snapshot(home.home), before, `a failed ${syscall} leaves nothing behind`)
    }
    assert.deepEqual(await contents(), ['the first fact', 'acknowledged'])
    ok(['add', 'once there is room', '-a', 's'])
    assert.deepEqual(await contents(), ['the first fact', 'acknowledged', 'once there is room'])
  })

  it('a journal that is a symbolic link is refused by every operation, reported by doctor, and what it points to is untouched', () => {
    ok(['add', 'in the journal', '-a', 's'])
    const target = join(home.home, 'elsewhere.jsonl')
    copyFileSync(journal(), target)
    renameSync(journal(), `${journal()}.moved`)
    symlinkSync(target, journal())
    const targetBefore = sha256(readFileSync(target))
    for (const args of [
      ['list', '-a', 's'],
      ['search', 'journal', '-a', 's'],
      ['add', 'more', '-a', 's'],
      ['export', '-a', 's'],
    ]) {
      const r = mem(home.home, [...args, '--json'])
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.stdout}`)
      assert.match(r.stdout, /000001\.jsonl cannot be used: it is a symbolic link/)
    }
    assert.equal(sha256(readFileSync(target)), targetBefore)
    const doctor = mem(home.home, ['doctor', '--json'])
    assert.equal(doctor.code, 1)
    const problems = (JSON.parse(doctor.stdout) as {problems: {kind: string; path: string}[]}).problems
    assert.deepEqual(
      problems.map((p) => [p.kind, p.path]),
      [['link', journal()]],
    )
  })

  it('a damaged whole line fails every operation naming the file and line, and doctor reports it', () => {
    ok(['add', 'in the journal', '-a', 's'])
    appendFileSync(journal(), '{"add":{"id":"not an id"}}\n')
    const before = snapshot(home.home)
    for (const args of [
      ['list', '-a', 's'],
      ['add', 'more', '-a', 's'],
    ]) {
      const r = mem(home.home, [...args, '--json'])
      assert.equal(r.code, 1, r.stdout)
      assert.match(r.stdout, /000001\.jsonl cannot be used: the record added on line 3 does not decode/)
    }
    assert.deepEqual(snapshot(home.home), before)
    const doctor = mem(home.home, ['doctor', '--json'])
    assert.equal(doctor.code, 1)
    const problems = (JSON.parse(doctor.stdout) as {problems: {kind: string; path: string}[]}).problems
    assert.deepEqual(
      problems.map((p) => [p.kind, p.path]),
      [['corrupt_file', journal()]],
    )
  })

  it('a journal past its bound, and a segment that closes, are folded into the JSON file', async () => {
    // Each fact is about 1 KB: the journal passes its bound after about 60 adds.
    const body = 'x'.repeat(1000)
    const mcp = await connectMcp(home.home, {args: ['--agent', 's']})
    let folded = false
    try {
      for (let i = 0; i < 80; i++) {
        assert.equal((await mcp.call('memory_add', {content: `fact ${i} ${body}`})).isError, undefined)
        if (!existsSync(journal())) folded = true
        if (existsSync(journal())) assert.ok(statSync(journal()).size <= JOURNAL_MAX_BYTES)
      }
    } finally {
      await mcp.close()
    }
    assert.ok(folded, 'the journal was folded into the JSON file once past its bound')
    assert.equal((await contents()).length, 81)
    const envelope = JSON.parse(readFileSync(segment(), 'utf8')) as {version: number; records: unknown[]}
    assert.equal(envelope.version, FORMAT_VERSION)
    assert.ok(envelope.records.length > 50)
    assert.equal(mem(home.home, ['doctor']).code, 0)
    // A segment that closes (its 1,000th fact) is folded whole: only the open segment keeps a journal.
    const many = Array.from({length: FACT_SEGMENT.maxRecords}, (_, i) =>
      JSON.stringify({
        type: 'fact',
        agent_id: 'c',
        id: `01JAAAAAAA${String(i).padStart(16, '0')}`,
        content: `f ${i}`,
        tags: [],
        created_at: '2026-01-01T00:00:00.000Z',
      }),
    )
    const header = JSON.stringify({type: 'header', format: 'mem.export', version: 1})
    const imp = mem(home.home, ['import', '-'], {input: `${[header, ...many.slice(0, 998)].join('\n')}\n`})
    assert.equal(imp.code, 0, imp.stderr)
    ok(['add', 'the 999th', '-a', 'c'])
    const cFacts = join(agentDir(home.home, 'c'), 'facts')
    assert.ok(existsSync(join(cFacts, '000001.jsonl')))
    ok(['add', 'the 1000th', '-a', 'c'])
    ok(['add', 'opens the second segment', '-a', 'c'])
    assert.equal(existsSync(join(cFacts, '000001.jsonl')), false, 'the closed segment was folded')
    const closed = JSON.parse(readFileSync(join(cFacts, '000001.json'), 'utf8')) as {records: unknown[]}
    assert.equal(closed.records.length, 1000)
    assert.equal((await readBack(home.home, 'c')).facts.length, 1001)
  })

  it('doctor --fix restores a damaged JSON file from its .bak and the journal it folded, and loses no change since', async () => {
    const body = 'y'.repeat(1000)
    const mcp = await connectMcp(home.home, {args: ['--agent', 's']})
    try {
      // Past the journal's bound the segment is folded: .bak is the file before, .jsonl.bak the journal folded in.
      for (let i = 0; !existsSync(`${journal()}.bak`); i++)
        assert.equal((await mcp.call('memory_add', {content: `fact ${i} ${body}`})).isError, undefined)
      for (const content of ['after the fold', 'and one more'])
        assert.equal((await mcp.call('memory_add', {content})).isError, undefined)
    } finally {
      await mcp.close()
    }
    const stored = await contents()
    assert.ok(existsSync(journal()), 'the changes since the fold are in a new journal')
    writeFileSync(segment(), '{"broken')
    assert.equal(mem(home.home, ['list', '-a', 's']).code, 1)
    const fixed = mem(home.home, ['doctor', '--fix'])
    assert.equal(fixed.code, 0, fixed.stdout)
    assert.deepEqual(await contents(), stored, 'every fact is back')
    assert.equal(mem(home.home, ['doctor']).code, 0)
  })

  it('a server sees another process append, and a fold replay repeats nothing: a journal left beside the folded file changes nothing', async () => {
    const mcp = await connectMcp(home.home, {args: ['--agent', 's']})
    try {
      assert.equal((await mcp.call('memory_search', {query: 'fact'})).isError, undefined)
      ok(['add', 'from the CLI about kestrels', '-a', 's'])
      const seen = await mcp.call('memory_search', {query: 'kestrels'})
      assert.equal((seen.structuredContent as {count: number}).count, 1, "the server read the other process's line")
    } finally {
      await mcp.close()
    }
    // A writer that died after writing the folded JSON file and before removing the journal.
    const kept = readFileSync(journal())
    const envelope = JSON.parse(readFileSync(segment(), 'utf8')) as {records: unknown[]}
    const lines = kept
      .toString('utf8')
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => (JSON.parse(l) as {add: unknown}).add)
    writeFileSync(segment(), `${JSON.stringify({...envelope, records: [...envelope.records, ...lines]})}\n`)
    assert.deepEqual(await contents(), ['the first fact', 'from the CLI about kestrels'])
  })

  it('a home of format 2 is read as it is; its first change rewrites the segment as the current format, then appends', async () => {
    const before = JSON.parse(readFileSync(segment(), 'utf8')) as Record<string, unknown>
    writeFileSync(segment(), `${JSON.stringify({...before, version: 2})}\n`)
    const v2 = readFileSync(segment())
    assert.deepEqual(await contents(), ['the first fact'])
    assert.deepEqual(readFileSync(segment()), v2, 'a read changes nothing')
    ok(['add', 'written by this mem', '-a', 's'])
    assert.equal((JSON.parse(readFileSync(segment(), 'utf8')) as {version: number}).version, FORMAT_VERSION)
    assert.equal(existsSync(journal()), false, 'no journal beside a file an older mem would read without it')
    ok(['add', 'and appended', '-a', 's'])
    assert.ok(existsSync(journal()))
    assert.deepEqual(await contents(), ['the first fact', 'written by this mem', 'and appended'])
  })
})
