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
})
