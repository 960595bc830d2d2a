import assert from 'node:assert/strict'
import {readdirSync} from 'node:fs'
import {join} from 'node:path'

import {mem, tempHome} from '../helpers/mem.js'
import {readBack} from '../reliability/files.js'
import {agentDir} from '../../src/store/paths.js'
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

  // In `mem add` to an existing agent: fsync 1 flushes the new data file, fsync 2 its folder
  // after the rename; rename 1 commits the data file, rename 2 replaces revision.json.
  for (const {what, prefix} of [
    {what: 'writing revision.json fails with ENOSPC', prefix: failing('rename', 'ENOSPC', 2)},
    {what: 'flushing the folder after the rename fails with EIO (every time)', prefix: failing('fsync', 'EIO', 2)},
  ]) {
    it(`once the data file is renamed into place, ${what}: the add still succeeds, and the store stays sound`, async () => {
      const r = await startMem(home.home, ['add', 'committed', '-a', 's', '--json'], {prefix}).done
      assert.equal(r.code, 0, r.stdout + r.stderr)
      const id = ackedId(r)
      assert.ok(id)
      assert.deepEqual(await contents(), ['seed', 'committed'])
      assert.equal(mem(home.home, ['add', 'after', '-a', 's']).code, 0)
      assert.deepEqual(await contents(), ['seed', 'committed', 'after'])
      const doctor = mem(home.home, ['doctor'])
      assert.equal(doctor.code, 0, doctor.stdout)
    })
  }

  it('a full disk before the commit: the error names the file and the cause, says nothing was saved, and leaves no debris', async () => {
    const r = await startMem(home.home, ['add', 'not saved', '-a', 's', '--json'], {prefix: failing('fsync', 'ENOSPC', 1)}).done
    assert.equal(r.code, 1)
    const error = (JSON.parse(r.stdout) as {error: {code: string; message: string}}).error
    assert.equal(error.code, 'io_error')
    assert.match(error.message, /^could not write \S+\/agents\/s\/facts\/000001\.json: no space left on device \(ENOSPC\); nothing was saved$/)
    assert.deepEqual(await contents(), ['seed'])
    assert.deepEqual(readdirSync(join(agentDir(home.home, 's'), 'facts')).filter((n) => n.endsWith('.tmp')), [])
  })

  it('a failed import says how many facts it stored, that running it again is safe, and running it again completes it', async () => {
    const lines = [JSON.stringify({type: 'header', format: 'mem.export', version: 1})]
    for (let i = 0; i < 2500; i++) lines.push(JSON.stringify({type: 'fact', agent_id: 'big', id: `01JAAAAAAA${String(i).padStart(16, '0')}`, content: `imported ${i}`, tags: [], created_at: '2026-01-01T00:00:00.000Z'}))
    const file = `${lines.join('\n')}\n`
    // Renames 1 and 2 commit the first two segments (1,000 facts each); the third fails.
    const r = await startMem(home.home, ['import', '-', '--json'], {prefix: failing('rename', 'ENOSPC', 3), input: file}).done
    assert.equal(r.code, 1, r.stdout)
    const error = (JSON.parse(r.stdout) as {error: {code: string; message: string}}).error
    assert.match(error.message, /^The import stopped at agent "big": could not replace \S+\/facts\/000003\.json: no space left on device \(ENOSPC\); 2000 of 2500 facts of this agent were saved before it stopped\. Running the import again is safe: it skips what is already stored\.$/)
    assert.equal((await readBack(home.home, 'big')).facts.length, 2000)
    const again = await startMem(home.home, ['import', '-', '--json'], {input: file}).done
    assert.equal(again.code, 0, again.stderr)
    assert.equal((JSON.parse(again.stdout) as {added: {facts: number}}).added.facts, 500)
    assert.equal((await readBack(home.home, 'big')).facts.length, 2500)
  })
})
