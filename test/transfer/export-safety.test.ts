import assert from 'node:assert/strict'
import {execFileSync, spawn, spawnSync} from 'node:child_process'
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {BIN, childEnv, mem, tempHome} from '../helpers/mem.js'
import {lines, ok} from './helpers.js'

/** The export's records, without the header's time (two exports differ only there). */
function records(text: string): unknown[] {
  return lines(text).map((l) => (l.type === 'header' ? {...l, exported_at: undefined} : l))
}

const VICTIM_TEXT = "the user's own file\n"

describe('mem export -o never writes through planted links, never replaces devices', () => {
  let home: ReturnType<typeof tempHome>
  let folder: string
  let victim: string

  before(() => {
    home = tempHome()
    ok(home.home, ['add', 'A secret worth stealing', '--agent', 'alice'])
    ok(home.home, ['add', 'Another one', '--agent', 'alice'])
  })
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'mem-export-out-'))
    victim = join(mkdtempSync(join(tmpdir(), 'mem-victim-')), 'victim.txt')
    writeFileSync(victim, VICTIM_TEXT, {mode: 0o644})
  })
  afterEach(() => {
    rmSync(folder, {recursive: true, force: true})
    rmSync(join(victim, '..'), {recursive: true, force: true})
  })
  after(() => home.cleanup())

  function assertVictimUntouched(): void {
    assert.ok(lstatSync(victim).isFile())
    assert.equal(readFileSync(victim, 'utf8'), VICTIM_TEXT, 'the victim file is untouched')
    assert.equal(statSync(victim).mode & 0o777, 0o644)
  }

  it('a link planted at the temporary name mem used to pick, and one at a random name, are left alone', () => {
    const out = join(folder, 'backup.jsonl')
    symlinkSync(victim, join(folder, '.backup.jsonl.deadbeef.tmp'))
    // `exec` keeps the shell's pid, so $$ is the pid the export runs as: the name it used to pick.
    const script = `ln -s ${JSON.stringify(victim)} ${JSON.stringify(folder)}/.backup.jsonl.$$.tmp && exec "$0" "$@"`
    const r = spawnSync('sh', ['-c', script, process.execPath, BIN, 'export', '--agent', 'alice', '-o', out], {
      env: childEnv(home.home),
      encoding: 'utf8',
    })
    assert.equal(r.status, 0, r.stderr)
    assertVictimUntouched()
    assert.ok(lstatSync(out).isFile())
    assert.equal(statSync(out).mode & 0o777, 0o600)
    assert.deepEqual(records(readFileSync(out, 'utf8')), records(ok(home.home, ['export', '--agent', 'alice']).stdout))
    const planted = readdirSync(folder).filter((n) => n.endsWith('.tmp'))
    assert.equal(
      planted.length,
      2,
      `both planted links are still there and no temp file is left: ${planted.join(', ')}`,
    )
    for (const name of planted) assert.ok(lstatSync(join(folder, name)).isSymbolicLink())
  })

  it('an -o that is a symbolic link to a file is refused, naming the link, and nothing is written', () => {
    const out = join(folder, 'backup.jsonl')
    symlinkSync(victim, out)
    const r = mem(home.home, ['export', '--agent', 'alice', '-o', out])
    assert.equal(r.code, 2, r.stderr)
    assert.match(
      r.stderr,
      /--output .*backup\.jsonl is a symbolic link to a regular file; mem does not write through links/,
    )
    assertVictimUntouched()
    assert.ok(lstatSync(out).isSymbolicLink(), 'the link is still a link')
    assert.deepEqual(readdirSync(folder), ['backup.jsonl'])
  })

  it('an -o that is a folder or a dangling link is refused', () => {
    mkdirSync(join(folder, 'dir'))
    const dir = mem(home.home, ['export', '--agent', 'alice', '-o', join(folder, 'dir')])
    assert.equal(dir.code, 2)
    assert.match(dir.stderr, /is a folder/)
    symlinkSync(join(folder, 'nowhere'), join(folder, 'dangling'))
    const dangling = mem(home.home, ['export', '--agent', 'alice', '-o', join(folder, 'dangling')])
    assert.equal(dangling.code, 2)
    assert.match(dangling.stderr, /symbolic link to nothing/)
    assert.throws(() => lstatSync(join(folder, 'nowhere')))
  })

  it('an -o that is a FIFO is written in place and stays a FIFO', async () => {
    const fifo = join(folder, 'pipe')
    execFileSync('mkfifo', [fifo])
    const reader = spawn('cat', [fifo])
    let got = ''
    reader.stdout.setEncoding('utf8').on('data', (d: string) => (got += d))
    const closed = new Promise((resolve) => reader.on('close', resolve))
    const r = mem(home.home, ['export', '--agent', 'alice', '-o', fifo])
    // A reader still waiting means nothing ever opened the FIFO for writing.
    if (r.code !== 0 || !lstatSync(fifo).isFIFO()) reader.kill()
    await closed
    assert.equal(r.code, 0, r.stderr)
    assert.ok(lstatSync(fifo).isFIFO(), 'still a FIFO')
    assert.deepEqual(records(got), records(ok(home.home, ['export', '--agent', 'alice']).stdout))
  })

  it('an -o that is a character device (a copy of /dev/null) stays a device', () => {
    const device = join(folder, 'null')
    const made = spawnSync('mknod', [device, 'c', '1', '3'])
    let reader: ReturnType<typeof spawn> | undefined
    if (made.status !== 0) {
      // Without the right to make device nodes, a FIFO is the special file there is; a reader keeps it open.
      execFileSync('mkfifo', [device])
      reader = spawn('sh', ['-c', `exec cat ${JSON.stringify(device)} > /dev/null`])
    }
    const r = mem(home.home, ['export', '--agent', 'alice', '-o', device])
    reader?.kill()
    assert.equal(r.code, 0, r.stderr)
    const after = lstatSync(device)
    assert.ok(made.status === 0 ? after.isCharacterDevice() : after.isFIFO(), 'still the special file it was')
    assert.deepEqual(readdirSync(folder), ['null'], 'no temporary file left beside it')
  })

  it('a link to /dev/stdout on a pipe is written in place: the lines arrive on stdout', () => {
    const link = join(folder, 'stdout')
    symlinkSync('/dev/stdout', link)
    // Through a shell pipe, as `| jq` would be (a child's stdio from spawn is a socket, not a pipe).
    const r = spawnSync(
      'sh',
      ['-c', '"$0" "$@" | cat', process.execPath, BIN, 'export', '--agent', 'alice', '-o', link],
      {env: childEnv(home.home), encoding: 'utf8'},
    )
    assert.equal(r.status, 0, r.stderr)
    assert.equal(r.stderr, '')
    assert.ok(lstatSync(link).isSymbolicLink(), 'the link is still a link')
    const [summary, ...rest] = r.stdout.trimEnd().split('\n').reverse()
    assert.match(summary!, /^Exported 2 facts and 0 checkpoints of agent alice to /)
    assert.deepEqual(records(rest.reverse().join('\n')), records(ok(home.home, ['export', '--agent', 'alice']).stdout))
  })

  it('-o - writes to stdout exactly what plain mem export writes', () => {
    const dash = ok(home.home, ['export', '--agent', 'alice', '-o', '-'])
    const plain = ok(home.home, ['export', '--agent', 'alice'])
    assert.deepEqual(records(dash.stdout), records(plain.stdout))
    assert.equal(dash.stdout.split('\n').length, plain.stdout.split('\n').length)
    assert.throws(() => lstatSync(join(process.cwd(), '-')), 'no file named "-"')
  })
})
