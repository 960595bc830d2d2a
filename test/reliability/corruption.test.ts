import assert from 'node:assert/strict'
import {copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'

import {connectMcp} from '../helpers/mcp.js'
import {mem, memAsync, tempHome} from '../helpers/mem.js'
import {FileStore} from '../../src/store/file/file-store.js'
import {sha256, snapshot} from './files.js'

/** Ways a data file can be damaged or foreign, each applied to alice's first facts segment. */
const damages: {
  name: string
  kind: 'corrupt_file' | 'unsupported_version'
  mention: RegExp
  file?: string
  damage: (file: string, home: string) => void
}[] = [
  {
    name: 'truncated',
    kind: 'corrupt_file',
    mention: /not valid JSON/,
    damage: (f) => writeFileSync(f, readFileSync(f).subarray(0, 40)),
  },
  {name: 'empty', kind: 'corrupt_file', mention: /empty/, damage: (f) => writeFileSync(f, '')},
  {
    // Pretty-printed by hand, with a comma left after the last record: records close on line 12.
    name: 'a hand-made trailing comma',
    kind: 'corrupt_file',
    mention: /not valid JSON at line \d+, column 3 \(a comma before a closing bracket\)/,
    damage: (f) =>
      writeFileSync(
        f,
        JSON.stringify(JSON.parse(readFileSync(f, 'utf8')), null, 2).replace(/\}\n {2}\]\n\}$/, '},\n  ]\n}\n'),
      ),
  },
  {
    name: 'truncated JSON names where it ends',
    kind: 'corrupt_file',
    mention: /not valid JSON: it ends too early \(line 1, column 41\)/,
    damage: (f) => writeFileSync(f, readFileSync(f).subarray(0, 40)),
  },
  {
    name: 'binary garbage',
    kind: 'corrupt_file',
    mention: /not valid JSON/,
    damage: (f) => writeFileSync(f, Buffer.from([0xff, 0x00, 0x9c, 0x7b, 0x22, 0x01, 0xfe, 0x80, 0x0a])),
  },
  {
    name: 'valid JSON of the wrong shape',
    kind: 'corrupt_file',
    mention: /not a mem data file/,
    damage: (f) => writeFileSync(f, '{"hello": "world"}\n'),
  },
  {
    name: 'a JSON array',
    kind: 'corrupt_file',
    mention: /not a mem data file/,
    damage: (f) => writeFileSync(f, '[1, 2, 3]\n'),
  },
  {
    name: 'a record of the wrong shape',
    kind: 'corrupt_file',
    mention: /a record does not decode/,
    damage: (f) =>
      writeFileSync(
        f,
        JSON.stringify({format: 'mem.facts', version: 2, agent: 'alice', records: [{id: 1, content: null}]}),
      ),
  },
  {
    name: 'checkpoints where facts belong',
    kind: 'corrupt_file',
    mention: /"mem.checkpoints" data where "mem.facts"/,
    damage: (f, home) => copyFileSync(join(home, 'agents/alice/checkpoints/000001.json'), f),
  },
  {
    name: "another agent's file",
    kind: 'corrupt_file',
    mention: /belongs to agent "bob"/,
    damage: (f, home) => copyFileSync(join(home, 'agents/bob/facts/000001.json'), f),
  },
  {
    name: 'a truncated checkpoints file',
    kind: 'corrupt_file',
    mention: /not valid JSON/,
    file: 'agents/alice/checkpoints/000001.json',
    damage: (f) => writeFileSync(f, readFileSync(f).subarray(0, 60)),
  },
  {
    name: 'a newer format version',
    kind: 'unsupported_version',
    mention: /newer mem .*Upgrade mem/,
    damage: (f) =>
      writeFileSync(f, JSON.stringify({format: 'mem.facts', version: 99, agent: 'alice', records: [], shards: {}})),
  },
]

/** Every operation that touches alice's facts, through the CLI. */
function operations(factId: string): string[][] {
  return [
    ['search', 'deploy', '-a', 'alice'],
    ['add', 'a new fact', '-a', 'alice'],
    ['resume', '-a', 'alice'],
    ['save', '--state', '{"step":2}', '-a', 'alice'],
    ['reflect', 'delete', '-f', factId, '-a', 'alice'],
    ['reflect', 'update', '-f', factId, '-c', 'changed', '-a', 'alice'],
  ]
}

describe('corrupt and foreign data files (built mem, real files)', function () {
  this.timeout(120_000)

  for (const {name, kind, mention, file: damaged = 'agents/alice/facts/000001.json', damage} of damages) {
    it(`${name}: every operation fails naming the file, nothing changes, doctor reports it and --fix restores the backup where one exists`, async () => {
      const {home, cleanup} = tempHome()
      try {
        // Set up through the store itself (the same code the binary runs), to keep the test quick.
        const store = new FileStore(home)
        const first = await store.addFact('alice', {content: 'deploys go out on Tuesdays', tags: []})
        await store.saveCheckpoint('alice', {state: {step: 1}})
        // An import writes each segment whole, so each file has a .bak (an add or a save appends to its journal).
        await store.importRecords('alice', {
          facts: [
            {
              id: '01JAAAAAAAAAAAAAAAAAAAAAAA',
              content: 'the staging database is read-only',
              tags: [],
              created_at: '2026-01-01T00:00:00.000Z',
            },
          ],
          checkpoints: [{id: '01JAAAAAAAAAAAAAAAAAAAAAAB', created_at: '2026-01-01T00:00:00.000Z', state: {step: 2}}],
        })
        await store.addFact('bob', {content: 'bob likes tea', tags: []})
        const file = join(home, damaged)
        const good = readFileSync(join(`${file}.bak`))
        damage(file, home)
        const before = snapshot(home)

        const runs = operations(first.id)
        const results = await Promise.all(runs.map((args) => memAsync(home, [...args, '--json'])))
        for (const [i, r] of results.entries()) {
          const args = runs[i]!
          assert.equal(r.code, 1, `mem ${args.join(' ')} should exit 1: ${r.stderr}`)
          assert.ok(r.stderr.includes(file), `the error names the file: ${r.stderr}`)
          assert.match(r.stderr, mention)
          assert.equal((JSON.parse(r.stdout) as {error: {code: string}}).error.code, kind)
        }
        assert.deepEqual(snapshot(home), before, 'no file changed')

        const report = mem(home, ['doctor', '--json'])
        assert.equal(report.code, 1)
        const found = (
          JSON.parse(report.stdout) as {problems: {kind: string; path: string; fixed: boolean}[]}
        ).problems.filter((p) => p.path === file)
        assert.deepEqual(
          found.map((p) => [p.kind, p.fixed]),
          [[kind, false]],
        )
        assert.deepEqual(snapshot(home), before, 'doctor without --fix changes nothing')

        const fixed = mem(home, ['doctor', '--fix'])
        if (kind === 'unsupported_version') {
          assert.equal(fixed.code, 1, 'a newer file cannot be fixed here')
          assert.match(fixed.stdout, /upgrade mem/)
          assert.deepEqual(snapshot(home), before, 'a newer file is never rewritten')
          return
        }
        assert.equal(fixed.code, 0, fixed.stdout + fixed.stderr)
        assert.deepEqual(readFileSync(file), good, 'the last good copy is back')
        const aside = readdirSync(dirname(file)).filter((n) => n.startsWith('000001.json.corrupt-'))
        assert.equal(aside.length, 1, 'the corrupt file is kept aside')
        assert.equal(sha256(readFileSync(join(dirname(file), aside[0]!))), before[damaged])
        assert.equal(mem(home, ['search', 'deploys', '-a', 'alice']).code, 0)
        assert.equal(mem(home, ['doctor']).code, 0)
      } finally {
        cleanup()
      }
    })
  }

  it('--fix says, before and while restoring the copy, that it discards a hand edit; a torn write gets no such warning', () => {
    const {home, cleanup} = tempHome()
    try {
      assert.equal(mem(home, ['add', 'deploys go out on Tuesdays', '-a', 'alice']).code, 0)
      // Imported, so the file is written whole and keeps a .bak (an add appends to its journal).
      const line = (record: object) => JSON.stringify(record)
      const imported = mem(home, ['import', '-'], {
        input: `${line({type: 'header', format: 'mem.export', version: 1})}\n${line({type: 'fact', agent_id: 'alice', id: '01JAAAAAAAAAAAAAAAAAAAAAAA', content: 'the staging database is read-only', tags: [], created_at: '2026-01-01T00:00:00.000Z'})}\n`,
      })
      assert.equal(imported.code, 0, imported.stderr)
      const file = join(home, 'agents/alice/facts/000001.json')
      const written = readFileSync(file, 'utf8')
      // A person pretty-prints the file, edits a fact and leaves a trailing comma.
      writeFileSync(file, JSON.stringify(JSON.parse(written), null, 2).replace('read-only"', 'read-only on Fridays",'))
      const plan = mem(home, ['doctor'])
      assert.match(
        plan.stdout,
        /--fix: this discards a hand edit \(the file is laid out on several lines, which mem never writes; copy your change back from the file kept aside\): restore the last good copy/,
      )
      const done = mem(home, ['doctor', '--fix'])
      assert.equal(done.code, 0, done.stdout)
      assert.match(
        done.stdout,
        /Done: this discarded a hand edit \(.*\): restored the last good copy .*; the corrupt file is kept aside as \S+\.corrupt-\d{4}-/,
      )

      // A write cut short is mem's own one-line file: restoring its copy loses no edit of a person.
      writeFileSync(file, readFileSync(file).subarray(0, 60))
      const torn = mem(home, ['doctor', '--fix'])
      assert.equal(torn.code, 0, torn.stdout)
      assert.doesNotMatch(torn.stdout, /hand edit/)
    } finally {
      cleanup()
    }
  })

  it('without a backup, --fix leaves the corrupt file as it is and exits 1', () => {
    const {home, cleanup} = tempHome()
    try {
      assert.equal(mem(home, ['add', 'only one write', '-a', 'alice']).code, 0)
      const file = join(home, 'agents/alice/facts/000001.json')
      assert.equal(existsSync(`${file}.bak`), false)
      writeFileSync(file, '{"format":"mem.facts","vers')
      const before = snapshot(home)
      const r = mem(home, ['doctor', '--fix', '--json'])
      assert.equal(r.code, 1)
      const report = JSON.parse(r.stdout) as {ok: boolean; problems: {kind: string; fixed: boolean; fix: string}[]}
      assert.equal(report.ok, false)
      assert.deepEqual(
        report.problems.map((p) => [p.kind, p.fixed]),
        [['corrupt_file', false]],
      )
      assert.match(report.problems[0]!.fix, /no good copy/)
      assert.deepEqual(snapshot(home), before)
    } finally {
      cleanup()
    }
  })

  it('a running MCP server that cached the file refuses to write over it once it is damaged', async () => {
    const {home, cleanup} = tempHome()
    const mcp = await connectMcp(home, {args: ['--agent', 'alice']})
    try {
      for (const content of ['one', 'two']) assert.notEqual((await mcp.call('memory_add', {content})).isError, true)
      assert.equal((await mcp.call('memory_search', {query: 'one'})).isError, undefined)
      const file = join(home, 'agents/alice/facts/000001.json')
      writeFileSync(file, readFileSync(file).subarray(0, 50))
      const before = snapshot(home)
      const result = await mcp.call('memory_add', {content: 'three'})
      assert.equal(result.isError, true)
      assert.match((result.content[0] as {text: string}).text, /000001\.json cannot be used/)
      assert.deepEqual(snapshot(home), before)
    } finally {
      await mcp.close()
      cleanup()
    }
  })
})
