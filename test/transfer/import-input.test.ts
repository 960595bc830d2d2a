import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {closeSync, openSync, writeFileSync, writeSync} from 'node:fs'
import {join} from 'node:path'

import {BIN, childEnv, mem, tempHome} from '../helpers/mem.js'
import {json, ok, snapshot} from './helpers.js'

const FACT = {type: 'fact', agent_id: 'carol', tags: [], created_at: '2026-01-31T09:15:00.000Z'}

function factLine(n: number, content: string): string {
  return JSON.stringify({...FACT, id: `01KAAAAAAA${String(n).padStart(16, '0')}`, content})
}

/** A line whose content was saved as Windows-1252: "café" with é as the single byte 0xE9. */
function latin1Line(n: number): Buffer {
  const [head, tail] = factLine(n, 'caf\u0000 au lait').split('\\u0000')
  return Buffer.concat([Buffer.from(head!), Buffer.from([0xe9]), Buffer.from(tail!)])
}

interface Listed {
  facts: {content: string}[]
}

describe('mem import: what the file holds (encoding, line length, stdin and pipes)', () => {
  let h: ReturnType<typeof tempHome>
  let files: ReturnType<typeof tempHome>
  let file: string
  beforeEach(() => {
    h = tempHome()
    files = tempHome()
    file = join(files.home, 'in.jsonl')
  })
  afterEach(() => {
    h.cleanup()
    files.cleanup()
  })

  const mixed = (): Buffer =>
    Buffer.concat([
      Buffer.from(`${factLine(1, 'plain text')}\n`),
      latin1Line(2),
      Buffer.from(`\n${factLine(3, 'more plain text')}\n`),
      latin1Line(4),
      Buffer.from('\n'),
    ])

  it('refuses lines that are not UTF-8, naming each line, the byte and the fix, and stores nothing', () => {
    ok(h.home, ['add', 'already here'])
    const before = snapshot(h.home)
    writeFileSync(file, mixed())
    const r = mem(h.home, ['import', file])
    assert.equal(r.code, 2, r.stderr)
    // The é is byte 60 of the line: `{"type":"fact",…,"content":"caf` is 59 bytes long.
    const at = Buffer.from(factLine(2, 'caf').slice(0, -2)).length + 1
    assert.match(r.stderr, new RegExp(`line 2: not valid UTF-8: byte 0xE9 at byte ${at} of the line`))
    assert.match(r.stderr, new RegExp(`line 4: not valid UTF-8: byte 0xE9 at byte ${at} of the line`))
    assert.match(r.stderr, /2 lines not valid UTF-8\. Save the file as UTF-8 .*--replace-invalid-utf8/)
    assert.deepEqual(snapshot(h.home), before)

    const asJson = mem(h.home, ['import', file, '--json'])
    assert.deepEqual(
      json<{error: {rejected: {line: number}[]}}>(asJson).error.rejected.map((l) => l.line),
      [2, 4],
    )
    assert.deepEqual(snapshot(h.home), before)
  })

  it('with --replace-invalid-utf8 imports those lines with U+FFFD and says which lines were changed', () => {
    writeFileSync(file, mixed())
    const report = json<{added: {facts: number}; replaced_invalid_utf8: {line: number}[]}>(
      ok(h.home, ['import', file, '--replace-invalid-utf8', '--json']),
    )
    assert.equal(report.added.facts, 4)
    assert.deepEqual(
      report.replaced_invalid_utf8.map((l) => l.line),
      [2, 4],
    )
    const stored = json<Listed>(ok(h.home, ['list', '--agent', 'carol', '--json'])).facts.map((f) => f.content)
    assert.deepEqual(stored.sort(), ['caf\ufffd au lait', 'caf\ufffd au lait', 'more plain text', 'plain text'])

    const again = ok(h.home, ['import', file, '--replace-invalid-utf8'])
    assert.match(again.stdout, /Read bytes that are not UTF-8 as U\+FFFD \(\ufffd\) on 2 lines: lines 2, 4\./)
  })

  it('with --skip-invalid leaves the lines that are not UTF-8 out and imports the rest', () => {
    writeFileSync(file, mixed())
    const report = json<{added: {facts: number}; rejected: {line: number}[]}>(
      ok(h.home, ['import', file, '--skip-invalid', '--json']),
    )
    assert.equal(report.added.facts, 2)
    assert.deepEqual(
      report.rejected.map((l) => l.line),
      [2, 4],
    )
  })

  /** A first line of 20 MiB (a fact whose content never ends), then a good line. */
  function hugeFile(): void {
    const fd = openSync(file, 'w')
    writeSync(fd, '{"type":"fact","agent_id":"carol","id":"01KAAAAAAA0000000000000009","content":"')
    const block = 'x'.repeat(1024 * 1024)
    for (let i = 0; i < 20; i++) writeSync(fd, block)
    writeSync(fd, `","tags":[],"created_at":"2026-01-31T09:15:00.000Z"}\n${factLine(1, 'after the long line')}\n`)
    closeSync(fd)
  }

  it('refuses a line longer than 16 MiB with a clear error, reads no further and stores nothing', () => {
    ok(h.home, ['add', 'already here'])
    const before = snapshot(h.home)
    hugeFile()
    const r = mem(h.home, ['import', file])
    assert.equal(r.code, 2, r.stderr)
    assert.match(r.stderr, /^Error: 1 line rejected; nothing was imported\./)
    assert.match(r.stderr, /line 1: longer than 16 MiB, the most a line may be/)
    assert.match(r.stderr, /mem stopped reading at line 1/)
    assert.deepEqual(snapshot(h.home), before)

    const skipped = json<{added: {facts: number}; rejected: {line: number}[]}>(
      ok(h.home, ['import', file, '--skip-invalid', '--json']),
    )
    assert.deepEqual(skipped.added, {facts: 1, checkpoints: 0})
    assert.deepEqual(
      skipped.rejected.map((l) => l.line),
      [1],
    )
  })

  it('reads a pipe that cannot be read twice, such as <(…), and stdin', () => {
    writeFileSync(file, `${factLine(1, 'through a pipe')}\n${factLine(2, 'and another')}\n`)
    const piped = spawnSync('bash', ['-c', `"${process.execPath}" "${BIN}" import <(cat "${file}") --json`], {
      env: childEnv(h.home),
      encoding: 'utf8',
    })
    assert.equal(piped.status, 0, piped.stderr)
    assert.deepEqual((JSON.parse(piped.stdout) as {added: unknown}).added, {facts: 2, checkpoints: 0})
    const fromStdin = json<{added: unknown; skipped: unknown[]}>(
      ok(h.home, ['import', '-', '--json'], {input: `${factLine(1, 'through a pipe')}\n${factLine(3, 'a third')}\n`}),
    )
    assert.deepEqual(fromStdin.added, {facts: 1, checkpoints: 0})
    assert.equal(fromStdin.skipped.length, 1)
  })

  it('reads stdin redirected from a file in place, with no copy; a pipe is copied, from where it stands', () => {
    writeFileSync(file, `${factLine(1, 'first of the file')}\n${factLine(2, 'second of the file')}\n`)
    // No temporary folder to copy into: only what needs no copy can be read.
    const env = {...childEnv(h.home), TMPDIR: join(files.home, 'missing')}
    const run = (script: string) =>
      spawnSync('bash', ['-c', script], {env: {...env, MEM: `"${process.execPath}" "${BIN}"`}, encoding: 'utf8'})

    const redirected = run(`eval "$MEM import - --json" < "${file}"`)
    assert.equal(redirected.status, 0, redirected.stderr)
    assert.deepEqual((JSON.parse(redirected.stdout) as {added: unknown}).added, {facts: 2, checkpoints: 0})

    const piped = run(`cat "${file}" | eval "$MEM import - --json"`)
    assert.equal(piped.status, 1)
    const error = (JSON.parse(piped.stdout) as {error: {code: string; message: string}}).error
    assert.equal(error.code, 'io_error')
    assert.match(
      error.message,
      /cannot keep a copy of the input to import in .*missing: .*set TMPDIR to a folder with room/,
    )

    // Stdin already read past its first line: the import starts where it stands, not at the file's start.
    const rest = spawnSync('bash', ['-c', `{ head -n 1 > /dev/null; eval "$MEM import - --json"; } < "${file}"`], {
      env: {...childEnv(files.home), MEM: `"${process.execPath}" "${BIN}"`},
      encoding: 'utf8',
    })
    assert.equal(rest.status, 0, rest.stderr)
    assert.deepEqual((JSON.parse(rest.stdout) as {agents: unknown}).agents, [
      {agent_id: 'carol', facts: 1, checkpoints: 0},
    ])
  })

  it('the documented jq recipe lists rejected lines whether the import was refused or went ahead', () => {
    // docs/guide-scripts.md and `mem import --help` give this recipe.
    const recipe = `jq -r '(.error // .).rejected[]? | "line \\(.line): \\(.message)"'`
    writeFileSync(file, `${factLine(1, 'good')}\nnot json\n`)
    const run = (flags: string): {status: number | null; stdout: string; stderr: string} =>
      spawnSync(
        'bash',
        ['-o', 'pipefail', '-c', `"${process.execPath}" "${BIN}" import "${file}" ${flags} --json | ${recipe}`],
        {
          env: childEnv(h.home),
          encoding: 'utf8',
        },
      )
    const refused = run('--dry-run')
    assert.equal(refused.status, 2, refused.stderr)
    assert.equal(refused.stdout, 'line 2: not valid JSON (Unexpected token \'o\', "not json" is not valid JSON)\n')
    const wentAhead = run('--skip-invalid')
    assert.equal(wentAhead.status, 0, wentAhead.stderr)
    assert.equal(wentAhead.stdout, refused.stdout)
  })
})
