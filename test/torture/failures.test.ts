import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'

import {BIN, mem, tempHome, type RunResult} from '../helpers/mem.js'
import {readBack} from '../reliability/files.js'
import {ok} from '../transfer/helpers.js'
import {agentDir} from '../../src/store/file/paths.js'
import {ackedId, failing, startMem} from './helpers.js'

/**
 * File-system failures injected with strace. An operation reports failure only when nothing of
 * it is durable, and then says so; a failure after the commit is not a failure of the change.
 */
describe('torture: failures before and after the commit (strace fault injection)', function () {
  this.timeout(60_000)
  let home: ReturnType<typeof tempHome>
  beforeEach(() => {
    home = tempHome()
    assert.equal(mem(home.home, ['add', 'seed', '-a', 's']).code, 0)
  })
  afterEach(() => home.cleanup())

  const contents = async (): Promise<string[]> => (await readBack(home.home, 's')).facts.map((f) => f.content)

  // A whole data file is written by `mem import` (and when a segment opens or is folded): rename 1
  // commits the data file, fsync 2 flushes its folder, rename 2 replaces revision.json. `mem add`
  // to the seed's segment appends to a new journal: fsync 1 flushes it, fsync 2 the folder that gained it.
  const imported = `${[
    JSON.stringify({type: 'header', format: 'mem.export', version: 1}),
    JSON.stringify({
      type: 'fact',
      agent_id: 's',
      id: '01JAAAAAAAAAAAAAAAAAAAAAAA',
      content: 'committed',
      tags: [],
      created_at: '2026-01-01T00:00:00.000Z',
    }),
  ].join('\n')}\n`
  for (const {what, prefix, args, input} of [
    {
      what: 'writing revision.json fails with ENOSPC',
      prefix: failing('rename', 'ENOSPC', 2),
      args: ['import', '-'],
      input: imported,
    },
    {
      what: 'flushing the folder after the rename fails with EIO (every time)',
      prefix: failing('fsync', 'EIO', 2),
      args: ['import', '-'],
      input: imported,
    },
    {
      what: 'flushing the folder of a new journal fails with EIO (every time)',
      prefix: failing('fsync', 'EIO', 2),
      args: ['add', 'committed', '-a', 's'],
    },
  ]) {
    it(`once the data is in place, ${what}: the change still succeeds, and the store stays sound`, async () => {
      const r = await startMem(home.home, [...args, '--json'], {prefix, input}).done
      assert.equal(r.code, 0, r.stdout + r.stderr)
      if (args[0] === 'add') assert.ok(ackedId(r))
      assert.deepEqual((await contents()).sort(), ['committed', 'seed'])
      assert.equal(mem(home.home, ['add', 'after', '-a', 's']).code, 0)
      assert.deepEqual((await contents()).sort(), ['after', 'committed', 'seed'])
      const doctor = mem(home.home, ['doctor'])
      assert.equal(doctor.code, 0, doctor.stdout)
    })
  }

  it('a full disk before the commit: the error names the file and the cause, says nothing was saved, and leaves no debris', async () => {
    const r = await startMem(home.home, ['add', 'not saved', '-a', 's', '--json'], {
      prefix: failing('fsync', 'ENOSPC', 1),
    }).done
    assert.equal(r.code, 1)
    const error = (JSON.parse(r.stdout) as {error: {code: string; message: string}}).error
    assert.equal(error.code, 'io_error')
    assert.match(
      error.message,
      /^could not write \S+\/agents\/s\/facts\/000001\.jsonl: no space left on device \(ENOSPC\); nothing was saved$/,
    )
    assert.deepEqual(await contents(), ['seed'])
    // The journal it had just made is gone again: nothing of the failed line is left for a reader.
    assert.equal(existsSync(join(agentDir(home.home, 's'), 'facts', '000001.jsonl')), false)
    assert.deepEqual(
      readdirSync(join(agentDir(home.home, 's'), 'facts')).filter((n) => n.endsWith('.tmp')),
      [],
    )
  })

  /** The message of the JSON error a run that must have exited 1 printed. */
  const failedWith = (r: RunResult): string => {
    assert.equal(r.code, 1, r.stdout)
    return (JSON.parse(r.stdout) as {error: {message: string}}).error.message
  }

  /** Imports `file` again, unhindered: it adds the `added` facts the stopped run did not, and agent "big" then holds `total`. */
  const importAgain = async (file: string, added: number, total: number): Promise<void> => {
    const again = await startMem(home.home, ['import', '-', '--json'], {input: file}).done
    assert.equal(again.code, 0, again.stderr)
    assert.equal((JSON.parse(again.stdout) as {added: {facts: number}}).added.facts, added)
    assert.equal((await readBack(home.home, 'big')).facts.length, total)
  }

  /** A mem export of `count` facts of agent "big", numbered from `from`. */
  const exportOf = (from: number, count: number): string => {
    const lines = [JSON.stringify({type: 'header', format: 'mem.export', version: 1})]
    for (let i = from; i < from + count; i++)
      lines.push(
        JSON.stringify({
          type: 'fact',
          agent_id: 'big',
          id: `01JAAAAAAA${String(i).padStart(16, '0')}`,
          content: `imported ${i}`,
          tags: [],
          created_at: '2026-01-01T00:00:00.000Z',
        }),
      )
    return `${lines.join('\n')}\n`
  }

  it('an import stopped between two writes says how many facts it imported, that running it again is safe, and running it again completes it', async () => {
    const file = exportOf(0, 2500)
    // Writes of 1,000 facts, a segment each. Renames 1 and 2 commit the first (its segment, then
    // the revision stamp); the third, the second write's segment, fails.
    const r = await startMem(home.home, ['import', '-', '--json'], {
      prefix: failing('rename', 'ENOSPC', 3),
      input: file,
    }).done
    assert.match(
      failedWith(r),
      /^The import stopped at agent "big": could not replace \S+\/facts\/000002\.json: no space left on device \(ENOSPC\); nothing was saved\. In all, 1000 of 2500 facts were imported before it stopped\. Running the import again is safe: it skips what is already stored\.$/,
    )
    assert.equal((await readBack(home.home, 'big')).facts.length, 1000)
    await importAgain(file, 1500, 2500)
  })

  it('an import stopped inside a write, between the two segments it fills, counts the facts of the first, and running it again completes it', async () => {
    ok(home.home, ['import', '-', '--json'], {input: exportOf(0, 500)})
    const file = exportOf(500, 2500)
    // The first write fills segment 1 with 500 facts (rename 1) and starts segment 2 (rename 2, which fails).
    const r = await startMem(home.home, ['import', '-', '--json'], {
      prefix: failing('rename', 'ENOSPC', 2),
      input: file,
    }).done
    assert.match(
      failedWith(r),
      /^The import stopped at agent "big": could not replace \S+\/facts\/000002\.json: no space left on device \(ENOSPC\)\. In all, 500 of 2500 facts were imported before it stopped\. Running the import again is safe: it skips what is already stored\.$/,
    )
    assert.equal((await readBack(home.home, 'big')).facts.length, 1000)
    await importAgain(file, 2000, 3000)
  })

  it('mem store copy stopped inside an agent says how many facts it saved, and running it again completes it', async () => {
    ok(home.home, ['import', '-', '--json'], {input: exportOf(0, 1500)})
    const target = join(home.home, 'copy')
    // The target's first segment of the agent is committed (rename 1); its second cannot be (rename 2).
    const r = await startMem(home.home, ['store', 'copy', '--to', target, '--json'], {
      prefix: failing('rename', 'ENOSPC', 2),
    }).done
    assert.match(
      failedWith(r),
      /^could not replace \S+\/copy\/agents\/big\/facts\/000002\.json: no space left on device \(ENOSPC\); 1000 of 1500 facts of this agent were saved before it stopped, and stay saved: running it again skips them\.$/,
    )
    assert.equal((await readBack(target, 'big')).facts.length, 1000)
    const again = await startMem(home.home, ['store', 'copy', '--to', target, '--json']).done
    assert.equal(again.code, 0, again.stderr)
    // Agent "s" of this suite's home is copied whole the second time: it comes after "big".
    assert.match(again.stderr, /^1\/2 big: 500 facts and 0 checkpoints added, 0 marked$/m)
    assert.equal((await readBack(target, 'big')).facts.length, 1500)
  })
})

describe('torture: folders, read-only file systems and repairs under a full disk', function () {
  this.timeout(60_000)
  let home: ReturnType<typeof tempHome>
  beforeEach(() => (home = tempHome()))
  afterEach(() => home.cleanup())

  it('every folder a first write makes is flushed in its parent (the home, agents/, the agent, facts/)', async () => {
    const memHome = join(home.home, 'home')
    const log = join(home.home, 'strace.log')
    const r = await startMem(memHome, ['add', 'first', '-a', 'new'], {
      prefix: ['strace', '-f', '-qq', '-y', '-o', log, '-e', 'trace=mkdir,mkdirat,fsync'],
    }).done
    assert.equal(r.code, 0, r.stderr)
    const lines = readFileSync(log, 'utf8').split('\n')
    const made = lines.flatMap((l) => /mkdir(?:at)?\((?:[^,]+, )?"([^"]+)", 0?700\) = 0/.exec(l)?.[1] ?? [])
    // A call may be split into an "unfinished" line and a "resumed" one: the path is on the first.
    const flushed = new Set(lines.flatMap((l) => /fsync\(\d+<([^>]+)>/.exec(l)?.[1] ?? []))
    assert.deepEqual(made, [
      memHome,
      join(memHome, 'agents'),
      join(memHome, 'agents', 'new'),
      join(memHome, 'agents', 'new', 'facts'),
    ])
    assert.deepEqual(
      made.filter((dir) => !flushed.has(dirname(dir))),
      [],
      `folders whose parent was not flushed:\n${lines.join('\n')}`,
    )
  })

  it('on a read-only file system, writing to a new agent names the read-only file system and says nothing was saved', () => {
    const ro = join(home.home, 'ro')
    mkdirSync(ro)
    // A private mount namespace with the folder bound read-only, as a read-only disk would be.
    const script = `mount --bind -o ro "$1" "$1" && exec "$2" "$3" add x -a new --json`
    const r = spawnSync('unshare', ['-m', 'sh', '-c', script, 'sh', ro, process.execPath, BIN], {
      env: {...process.env, MEM_HOME: join(ro, 'home')},
      encoding: 'utf8',
    })
    assert.equal(r.status, 1, r.stderr)
    assert.match(
      (JSON.parse(r.stdout) as {error: {message: string}}).error.message,
      /^could not create the folder \S+\/ro\/home\/agents\/new: the file system is read-only \(EROFS\); nothing was saved$/,
    )
  })

  it('mem token revoke on a full disk says plainly that the token still works and what to do; once there is room it revokes it', () => {
    const fs = join(home.home, 'small-disk')
    const out = join(home.home, 'out')
    mkdirSync(fs)
    mkdirSync(out)
    // A private mount namespace with a small tmpfs, filled up: a disk with no space left, for real.
    const script = [
      'set -e',
      'mount -t tmpfs -o size=256k tmpfs "$1"',
      'export MEM_HOME="$1/home"',
      '"$3" "$4" token create --name laptop > /dev/null',
      'cp "$1/home/auth/tokens.json" "$2/before.json"',
      'dd if=/dev/zero of="$1/fill" bs=4k 2>/dev/null || true',
      '"$3" "$4" token revoke laptop --json > "$2/revoke.json" || echo $? > "$2/revoke.code"',
      'cp "$1/home/auth/tokens.json" "$2/after.json"',
      'ls -A "$1/home/auth" > "$2/auth.ls"',
      '"$3" "$4" token list --json > "$2/list.json"',
      'rm "$1/fill"',
      '"$3" "$4" token revoke laptop --json > "$2/again.json"',
      '"$3" "$4" token list --json > "$2/list-after.json"',
    ].join('\n')
    const r = spawnSync('unshare', ['-m', 'sh', '-c', script, 'sh', fs, out, process.execPath, BIN], {
      env: {...process.env, NO_COLOR: '1'},
      encoding: 'utf8',
    })
    assert.equal(r.status, 0, r.stderr + r.stdout)
    const read = (name: string): string => readFileSync(join(out, name), 'utf8')
    assert.equal(read('revoke.code').trim(), '1')
    assert.match(
      (JSON.parse(read('revoke.json')) as {error: {message: string}}).error.message,
      /^could not write \S+\/auth\/tokens\.json: no space left on device \(ENOSPC\)\. Token "laptop" was NOT revoked: it still works, and servers still accept it\. Free some disk space, then run "mem token revoke laptop" again\.$/,
    )
    assert.equal(read('after.json'), read('before.json'), 'the token file is as it was: the token still works')
    assert.deepEqual(
      read('auth.ls').trim().split('\n').sort(),
      ['tokens.json', 'write.lock'],
      'no temporary file is left',
    )
    assert.deepEqual(
      (JSON.parse(read('list.json')) as {tokens: {name: string}[]}).tokens.map((t) => t.name),
      ['laptop'],
    )
    assert.deepEqual(JSON.parse(read('again.json')), {name: 'laptop', revoked: true})
    assert.deepEqual(JSON.parse(read('list-after.json')), {count: 0, tokens: []})
  })

  it('a first write for a new agent that fails on a full disk leaves no agent behind: mem agents and export --all do not list it', async () => {
    assert.equal(mem(home.home, ['add', 'kept', '-a', 'other']).code, 0)
    // For a new agent: fsync 1 flushes agents/ (the new agent folder), 2 the agent folder (its new facts/), 3 the data file.
    const r = await startMem(home.home, ['add', 'lost', '-a', 'new', '--json'], {prefix: failing('fsync', 'ENOSPC', 3)})
      .done
    assert.equal(r.code, 1, r.stdout)
    assert.match(r.stdout, /no space left on device \(ENOSPC\); nothing was saved/)
    const agents = JSON.parse(mem(home.home, ['agents', '--json']).stdout) as {agents: {agent_id: string}[]}
    assert.deepEqual(
      agents.agents.map((a) => a.agent_id),
      ['other'],
    )
    const exported = mem(home.home, ['export', '--all'])
    assert.equal(exported.code, 0, exported.stderr)
    assert.equal(exported.stdout.includes('"new"'), false)
    assert.equal(mem(home.home, ['add', 'now it works', '-a', 'new']).code, 0)
    assert.deepEqual(
      (JSON.parse(mem(home.home, ['agents', '--json']).stdout) as {agents: {agent_id: string}[]}).agents.map(
        (a) => a.agent_id,
      ),
      ['new', 'other'],
    )
  })

  it('doctor --fix under a full disk leaves no extra .corrupt-<time> copy per failed attempt, and succeeds once there is room', async () => {
    assert.equal(mem(home.home, ['add', 'one', '-a', 'd']).code, 0)
    // An import writes the segment whole, keeping the version before it as 000001.json.bak (an add would append to the journal).
    const two = [
      {type: 'header', format: 'mem.export', version: 1},
      {
        type: 'fact',
        agent_id: 'd',
        id: '01JAAAAAAAAAAAAAAAAAAAAAAA',
        content: 'two',
        tags: [],
        created_at: '2026-01-01T00:00:00.000Z',
      },
    ]
    const imported = await startMem(home.home, ['import', '-'], {
      input: two.map((l) => JSON.stringify(l)).join('\n') + '\n',
    }).done
    assert.equal(imported.code, 0, imported.stderr)
    const facts = join(agentDir(home.home, 'd'), 'facts')
    writeFileSync(join(facts, '000001.json'), '{"broken')
    const aside = (): string[] => readdirSync(facts).filter((n) => n.includes('.corrupt-'))
    for (let attempt = 0; attempt < 2; attempt++) {
      const r = await startMem(home.home, ['doctor', '--fix', '--json'], {prefix: failing('fsync', 'ENOSPC', 1)}).done
      assert.equal(r.code, 1)
      assert.deepEqual(aside(), [])
      assert.match(r.stdout, /no space left on device \(ENOSPC\)/)
    }
    assert.equal(mem(home.home, ['doctor', '--fix']).code, 0)
    assert.equal(aside().length, 1)
    assert.deepEqual(
      (await readBack(home.home, 'd')).facts.map((f) => f.content),
      ['one'],
    )
  })
})
