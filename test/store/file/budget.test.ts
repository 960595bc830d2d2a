import assert from 'node:assert/strict'

import {tempHome} from '../../helpers/mem.js'
import {seedAgents} from '../../../bench/speed/agents.js'
import {FileStore} from '../../../src/store/file/file-store.js'

describe('a long-running store keeps its warm agents within budget', function () {
  this.timeout(120_000)
  let home: ReturnType<typeof tempHome>
  before(() => (home = tempHome()))
  after(() => home.cleanup())

  it('searching 2,000 agents of one fact each in turn keeps only as many warm as their real cost allows', async () => {
    const agents = seedAgents(home.home, 2000)
    const store = new FileStore(home.home)
    for (const agent of agents)
      assert.equal((await store.searchFacts(agent, {text: 'deploy', limit: 5})).hits.length <= 1, true)
    const use = store.cacheUse()
    // A warm agent holds a search index whose arrays alone take about 50 KiB, so 64 MiB holds well under 1,000 of them.
    assert.ok(use.agents < 1000, `${use.agents} agents kept warm`)
    assert.ok(use.agents > 100, `${use.agents} agents kept warm`)
    assert.ok(use.bytes <= 64 * 1024 * 1024 + 200 * 1024, `${use.bytes} bytes estimated`)
  })
})
