import assert from 'node:assert/strict'

import {jsonSchemaOf} from '../../src/mcp/tools.js'
import {cliOperations, operations, runOperation} from '../../src/ops/index.js'
import {FileStore} from '../../src/store/file/file-store.js'
import {tempHome} from '../helpers/mem.js'
import {validateAgainst} from '../helpers/schema.js'

describe('CLI-only operations', () => {
  let home: ReturnType<typeof tempHome>
  before(() => (home = tempHome()))
  after(() => home.cleanup())

  it('are not in the MCP inventory and do not share a name with a tool', () => {
    const tools = new Set(operations.map((op) => op.tool))
    assert.deepEqual(
      cliOperations.map((op) => op.tool),
      ['fact_list', 'agent_list', 'fact_history', 'checkpoint_list'],
    )
    for (const op of cliOperations) assert.ok(!tools.has(op.tool), op.tool)
  })

  it('every payload validates against its own output schema, converted as MCP would', async () => {
    const store = new FileStore(home.home)
    const ctx = {store, defaultAgent: 'alice'}
    const first = await store.addFact('alice', {content: 'Uses npm', tags: ['tooling']})
    const next = await store.supersede('alice', [first.id], {content: 'Uses bun', tags: ['tooling'], reason: 'faster'})
    const gone = await store.addFact('alice', {content: 'Temporary', tags: []})
    await store.deleteFact('alice', gone.id)
    await store.saveCheckpoint('alice', {state: {a: 1}, label: 'x', messages: [1, 2]})
    await store.saveCheckpoint('alice', {state: {}})
    const inputs: Record<string, Record<string, unknown>[]> = {
      fact_list: [
        {},
        {all: true},
        {all: true, limit: 1, tags: ['tooling'], since: '2000-01-01', until: '2999-01-01T00:00:00Z'},
      ],
      agent_list: [{}],
      fact_history: [{fact_id: first.id}, {fact_id: next.id}, {fact_id: gone.id}],
      checkpoint_list: [{}, {limit: 1}],
    }
    for (const op of cliOperations) {
      jsonSchemaOf(op.input)
      const schema = jsonSchemaOf(op.output)
      for (const input of inputs[op.tool]!) {
        const payload = await runOperation(op, ctx, input)
        assert.equal(validateAgainst(schema, payload), undefined, `${op.tool} ${JSON.stringify(input)}`)
        assert.equal(typeof op.prose(payload), 'string')
      }
    }
  })

  it('refuse bad input with the field named, before reading anything', async () => {
    const ctx = {store: new FileStore(home.home), defaultAgent: 'alice'}
    const [list, , history] = cliOperations
    await assert.rejects(runOperation(list!, ctx, {limit: 0}), /limit.*between 1 and 10000/)
    await assert.rejects(runOperation(list!, ctx, {since: 'yesterday'}), /since.*ISO 8601/)
    await assert.rejects(runOperation(history!, ctx, {fact_id: 'x'}), /fact_id.*26-character/)
  })
})
