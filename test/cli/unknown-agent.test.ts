import assert from 'node:assert/strict'
import {existsSync} from 'node:fs'
import {join} from 'node:path'

import {connectMcp} from '../helpers/mcp.js'
import {mem, tempHome} from '../helpers/mem.js'
import {snapshotTree} from '../helpers/tree.js'

describe('reading an agent that stored nothing creates nothing', () => {
  let home: ReturnType<typeof tempHome>
  before(() => {
    home = tempHome()
    assert.equal(mem(home.home, ['add', 'Prefers pnpm', '--agent', 'alice']).code, 0)
    assert.equal(mem(home.home, ['add', 'Standup is at ten', '--agent', 'team']).code, 0)
  })
  after(() => home.cleanup())

  const reads: string[][] = [
    ['search', 'deploy'],
    ['search', 'deploy', '--json'],
    ['list'],
    ['resume', '--on-missing', 'empty', '--json'],
    ['checkpoints'],
  ]
  for (const path of ['fast', 'oclif']) {
    for (const args of reads) {
      it(`mem ${args.join(' ')} --agent alcie (${path} path): an empty result, a hint on stderr, no folder`, () => {
        const before = snapshotTree(home.home)
        const r = mem(home.home, [...args, '--agent', 'alcie'], {
          env: {MEM_NO_FAST_PATH: path === 'oclif' ? '1' : undefined},
        })
        assert.equal(r.code, 0, r.stderr)
        assert.equal(r.stderr, 'mem: no agent alcie; known agents: alice, team\n')
        assert.deepEqual(snapshotTree(home.home), before)
        assert.equal(existsSync(join(home.home, 'agents', 'alcie')), false)
      })
    }
  }

  it('the payload is the one an empty agent gets; a known agent gets no hint', () => {
    const r = mem(home.home, ['search', 'deploy', '--agent', 'alcie', '--json'])
    assert.deepEqual(JSON.parse(r.stdout), {agent_id: 'alcie', query: 'deploy', count: 0, facts: []})
    assert.equal(mem(home.home, ['search', 'nothing', '--agent', 'alice']).stderr, '')
    assert.equal(mem(home.home, ['agents', '--json']).stdout.includes('alcie'), false)
  })

  it('over MCP, memory_search and checkpoint_resume of an unknown agent leave no folder either', async () => {
    const before = snapshotTree(home.home)
    const mcp = await connectMcp(home.home)
    try {
      const found = await mcp.call('memory_search', {query: 'deploy', agent_id: 'alcie'})
      assert.equal((found.structuredContent as {count: number}).count, 0)
      const resumed = await mcp.call('checkpoint_resume', {agent_id: 'alcie', on_missing: 'empty'})
      assert.equal((resumed.structuredContent as {found: boolean}).found, false)
    } finally {
      await mcp.close()
    }
    assert.deepEqual(snapshotTree(home.home), before)
    assert.equal(existsSync(join(home.home, 'agents', 'alcie')), false)
  })
})
