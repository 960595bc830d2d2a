import assert from 'node:assert/strict'

import {jsonSchemaOf, toolDefinitions} from '../../src/mcp/tools.js'
import {operations} from '../../src/ops/index.js'

describe('every operation schema can be advertised', () => {
  for (const op of operations) {
    it(`${op.tool}: input and output convert to JSON Schema objects`, () => {
      for (const schema of [op.input, op.output]) {
        const json = jsonSchemaOf(schema)
        assert.equal(json.type, 'object')
        assert.ok(json.properties || json.anyOf, 'declares its shape')
      }
    })
  }

  it('inputs reject unknown keys, so a misspelt argument is an error and not ignored', () => {
    for (const tool of toolDefinitions()) assert.equal(tool.inputSchema.additionalProperties, false, tool.name)
  })
})
