import assert from 'node:assert/strict'
import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {connectMcp} from '../helpers/mcp.js'
import {ROOT, tempHome} from '../helpers/mem.js'

const SNAPSHOT = join(ROOT, 'test', 'contract', 'tools-list.snapshot.json')

/**
 * The wire contract as a client sees it. A change here is a contract change: review it,
 * then refresh the file with `UPDATE_SNAPSHOT=1 npx mocha test/contract/tools-snapshot.test.ts`.
 */
describe('tools/list snapshot', () => {
  it('matches the checked-in snapshot', async () => {
    const home = tempHome()
    const mcp = await connectMcp(home.home)
    try {
      const live = `${JSON.stringify({tools: mcp.tools}, null, 2)}\n`
      if (process.env.UPDATE_SNAPSHOT === '1' || !existsSync(SNAPSHOT)) {
        assert.ok(
          process.env.UPDATE_SNAPSHOT === '1',
          `no snapshot at ${SNAPSHOT}: run with UPDATE_SNAPSHOT=1 to create it`,
        )
        writeFileSync(SNAPSHOT, live)
      }
      assert.equal(
        live,
        readFileSync(SNAPSHOT, 'utf8'),
        'tools/list changed: review the contract change, then UPDATE_SNAPSHOT=1',
      )
    } finally {
      await mcp.close()
      home.cleanup()
    }
  })
})
