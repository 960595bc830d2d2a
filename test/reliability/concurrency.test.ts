import assert from 'node:assert/strict'

import {connectMcp} from '../helpers/mcp.js'
import {memAsync, tempHome} from '../helpers/mem.js'
import {duplicates, readBack} from './files.js'

const SERVERS = 4
const CLI_LOOPS = 4
const FACTS_PER_SERVER = 480
const FACTS_PER_CLI_LOOP = 30
const SAVES_PER_PROCESS = 5
const IN_FLIGHT_PER_SERVER = 4
/** Eight busy writers on one agent can make a waiter miss the default 10 s lock timeout on a slow machine; this test is about lost updates. */
const ENV = {MEM_LOCK_TIMEOUT_MS: '120000'}

interface Acked {
  facts: string[]
  checkpoints: string[]
}

/** One `mem mcp serve` driven by the SDK client, with several calls in flight at once. */
async function serverWorker(home: string, n: number, acked: Acked): Promise<void> {
  const mcp = await connectMcp(home, {env: ENV})
  try {
    let next = 0
    const lane = async (): Promise<void> => {
      for (let i = next++; i < FACTS_PER_SERVER + SAVES_PER_PROCESS; i = next++) {
        if (i < SAVES_PER_PROCESS) {
          const r = await mcp.call('checkpoint_save', {agent_id: 'shared', state: {server: n, i}})
          assert.notEqual(r.isError, true, JSON.stringify(r.content))
          acked.checkpoints.push((r.structuredContent as {checkpoint_id: string}).checkpoint_id)
        } else {
          const r = await mcp.call('memory_add', {
            agent_id: 'shared',
            content: `server ${n} fact ${i}`,
            tags: [`s${n}`],
          })
          assert.notEqual(r.isError, true, JSON.stringify(r.content))
          acked.facts.push((r.structuredContent as {fact_id: string}).fact_id)
        }
      }
    }
    await Promise.all(Array.from({length: IN_FLIGHT_PER_SERVER}, lane))
  } finally {
    await mcp.close()
  }
}

/** A shell-script-like loop of `mem add` and `mem save` runs, one process each. */
async function cliWorker(home: string, n: number, acked: Acked): Promise<void> {
  for (let i = 0; i < FACTS_PER_CLI_LOOP + SAVES_PER_PROCESS; i++) {
    const save = i % 7 === 3 && i / 7 < SAVES_PER_PROCESS
    const r = save
      ? await memAsync(home, ['save', '--state', JSON.stringify({cli: n, i}), '-a', 'shared', '--json'], {env: ENV})
      : await memAsync(home, ['add', `cli ${n} fact ${i}`, '-a', 'shared', '--json'], {env: ENV})
    assert.equal(r.code, 0, r.stderr)
    const payload = JSON.parse(r.stdout) as {fact_id?: string; checkpoint_id?: string}
    if (payload.checkpoint_id) acked.checkpoints.push(payload.checkpoint_id)
    else acked.facts.push(payload.fact_id!)
  }
}

describe('concurrency: MCP servers and CLI runs writing to one agent at once (real processes)', function () {
  this.timeout(600_000)

  it('keeps every acknowledged fact and checkpoint exactly once', async () => {
    const {home, cleanup} = tempHome()
    try {
      const acked: Acked = {facts: [], checkpoints: []}
      await Promise.all([
        ...Array.from({length: SERVERS}, (_, n) => serverWorker(home, n, acked)),
        ...Array.from({length: CLI_LOOPS}, (_, n) => cliWorker(home, n, acked)),
      ])
      const found = await readBack(home, 'shared')
      assert.ok(acked.facts.length >= 2000, `only ${acked.facts.length} facts were written`)
      assert.deepEqual(duplicates(acked.facts), [], 'every acknowledged id is distinct')
      assert.deepEqual(duplicates(found.facts.map((f) => f.id)), [], 'no fact is stored twice')
      assert.deepEqual(duplicates(found.checkpoints.map((c) => c.id)), [], 'no checkpoint is stored twice')
      const factIds = new Set(found.facts.map((f) => f.id))
      const checkpointIds = new Set(found.checkpoints.map((c) => c.id))
      assert.deepEqual(
        acked.facts.filter((id) => !factIds.has(id)),
        [],
        'lost facts',
      )
      assert.deepEqual(
        acked.checkpoints.filter((id) => !checkpointIds.has(id)),
        [],
        'lost checkpoints',
      )
      assert.equal(found.facts.length, acked.facts.length, 'nothing but the acknowledged facts')
      const contents = found.facts.map((f) => f.content)
      assert.deepEqual(duplicates(contents), [], 'each write landed once')
      process.stderr.write(
        `      concurrency: ${SERVERS + CLI_LOOPS} writers (${SERVERS} MCP servers, ${CLI_LOOPS} CLI loops), ${acked.facts.length} facts and ${acked.checkpoints.length} checkpoints acknowledged, 0 lost, 0 duplicated\n`,
      )
    } finally {
      cleanup()
    }
  })
})
