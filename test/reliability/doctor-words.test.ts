import assert from 'node:assert/strict'
import {readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {mem, tempHome} from '../helpers/mem.js'

describe('mem doctor says what it did, in plain words', () => {
  let home: ReturnType<typeof tempHome>
  beforeEach(() => {
    home = tempHome()
  })
  afterEach(() => home.cleanup())

  it('a home that does not exist: nothing is stored there yet, and it stays absent', () => {
    const missing = join(home.home, 'nothing-here')
    const r = mem(missing, ['doctor'])
    assert.equal(r.code, 0)
    assert.equal(
      r.stdout,
      `Nothing is stored in ${missing} yet: the folder does not exist. mem creates it when something is first stored (check MEM_HOME if you expected data here).\n`,
    )
    assert.doesNotMatch(r.stdout, /Everything is in order/)
  })

  it('after --fix restores a corrupt file, the report names the file kept aside and no longer says to run --fix', () => {
    assert.equal(mem(home.home, ['add', 'one', '-a', 'alice']).code, 0)
    // Imported, so the file is written whole and keeps a .bak (an add appends to its journal).
    const two = {
      type: 'fact',
      agent_id: 'alice',
      id: '01JAAAAAAAAAAAAAAAAAAAAAAA',
      content: 'two',
      tags: [],
      created_at: '2026-01-01T00:00:00.000Z',
    }
    const header = {type: 'header', format: 'mem.export', version: 1}
    assert.equal(
      mem(home.home, ['import', '-'], {input: `${JSON.stringify(header)}\n${JSON.stringify(two)}\n`}).code,
      0,
    )
    const file = join(home.home, 'agents', 'alice', 'facts', '000001.json')
    writeFileSync(file, readFileSync(file).subarray(0, 30))
    const r = mem(home.home, ['doctor', '--fix'])
    assert.equal(r.code, 0, r.stdout)
    assert.doesNotMatch(r.stdout, /left untouched|Run "mem doctor --fix"|<time>/)
    assert.match(
      r.stdout,
      /Done: restored the last good copy \S+000001\.json\.bak; the corrupt file is kept aside as \S+000001\.json\.corrupt-\d{4}-\d\d-\d\dT/,
    )
  })

  it('a hand edit on the one line mem writes is named as a hand edit before --fix discards it', () => {
    assert.equal(mem(home.home, ['add', 'one', '-a', 'alice']).code, 0)
    // Imported, so the file is written whole and keeps a .bak (an add appends to its journal).
    const fact = {
      type: 'fact',
      agent_id: 'alice',
      id: '01JAAAAAAAAAAAAAAAAAAAAAAA',
      content: 'the staging database is read-only',
      tags: [],
      created_at: '2026-01-01T00:00:00.000Z',
    }
    const imported = mem(home.home, ['import', '-'], {
      input: `${JSON.stringify({type: 'header', format: 'mem.export', version: 1})}\n${JSON.stringify(fact)}\n`,
    })
    assert.equal(imported.code, 0, imported.stderr)
    const file = join(home.home, 'agents', 'alice', 'facts', '000001.json')
    const written = readFileSync(file, 'utf8')
    assert.equal(written.trimEnd().includes('\n'), false, 'mem writes one line')
    // An edit in place, as `sed -i` or an editor makes it: a fact changed and a comma left behind.
    writeFileSync(file, written.replace('read-only"', 'read-only on Fridays",'))
    const plan = mem(home.home, ['doctor'])
    assert.equal(plan.code, 1)
    assert.match(
      plan.stdout,
      /--fix: this discards a hand edit \(the file stops being JSON before its end, which a write cut short never leaves; copy your change back from the file kept aside\): restore the last good copy/,
    )
    const done = mem(home.home, ['doctor', '--fix'])
    assert.equal(done.code, 0, done.stdout)
    assert.match(done.stdout, /Done: this discarded a hand edit \(the file stops being JSON/)

    // Whole JSON that is not a mem data file was put there too.
    writeFileSync(file, '{"hello": "world"}\n')
    assert.match(
      mem(home.home, ['doctor']).stdout,
      /this discards a hand edit \(the file is whole JSON, but not what mem writes there;/,
    )
  })
})
