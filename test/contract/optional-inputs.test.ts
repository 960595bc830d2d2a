import assert from 'node:assert/strict'

import type {CallToolResult} from '@modelcontextprotocol/sdk/types.js'

import {connectMcp, type McpSession} from '../helpers/mcp.js'
import {tempHome} from '../helpers/mem.js'

interface InputSchema {
  properties: Record<string, Record<string, unknown>>
  required?: string[]
}

const JSON_TYPES = ['string', 'integer', 'number', 'boolean', 'array', 'object']

/**
 * The arguments each tool is called with in the null-or-left-out comparison: only its required
 * ones, plus what makes the optional ones matter (a reflect that adds, so that its optional
 * fields are read). Each optional argument is then sent as null once, to one server, and left
 * out once, to another.
 */
const BASE: Record<string, (key: string) => Record<string, unknown>> = {
  memory_add: (key) => ({content: `Prefers pnpm, said while leaving out ${key}`}),
  memory_search: () => ({query: 'pnpm'}),
  checkpoint_save: () => ({state: {step: 3}}),
  checkpoint_resume: () => ({include_messages: true}),
  memory_reflect: (key) => ({action: 'add', content: `Deploys on Tuesdays, said while leaving out ${key}`}),
}

/** What differs between two stores that were told the same things: ids and times. */
function comparable(result: CallToolResult): string {
  return JSON.stringify(result)
    .replace(/[0-9A-HJKMNP-TV-Z]{26}/g, '<id>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
}

const optionalKeys = (schema: InputSchema): string[] =>
  Object.keys(schema.properties).filter((key) => !(schema.required ?? []).includes(key))

/**
 * Clients that turn typed text into arguments (the MCP Inspector's CLI, `--tool-arg limit=5`)
 * convert a value only when the property's type is one plain JSON type; a union with null leaves
 * it a string, which the tool then refuses. Optional inputs are therefore advertised with their
 * plain type, and an explicit null, which models in structured-output modes send for a key they
 * leave out, is read as left out by every operation.
 */
describe('optional tool inputs', () => {
  const homes: ReturnType<typeof tempHome>[] = []
  let withNulls: McpSession
  let leftOut: McpSession
  before(async () => {
    homes.push(tempHome(), tempHome())
    withNulls = await connectMcp(homes[0]!.home)
    leftOut = await connectMcp(homes[1]!.home)
  })
  after(async () => {
    await withNulls?.close()
    await leftOut?.close()
    for (const home of homes) home.cleanup()
  })

  it('are advertised in tools/list with one plain type each, never a union with null', () => {
    const found: string[] = []
    for (const tool of withNulls.tools) {
      const schema = tool.inputSchema as InputSchema
      for (const key of optionalKeys(schema)) {
        const property = schema.properties[key]!
        const {type} = property
        if (typeof type !== 'string' || !JSON_TYPES.includes(type))
          found.push(`${tool.name}.${key}: type ${JSON.stringify(type)}`)
        for (const union of ['anyOf', 'oneOf', 'allOf'])
          if (union in property) found.push(`${tool.name}.${key}: ${union}`)
        if (Array.isArray(property.enum) && property.enum.includes(null))
          found.push(`${tool.name}.${key}: null in enum`)
      }
    }
    assert.deepEqual(found, [])
    assert.ok(
      withNulls.tools.every((tool) => optionalKeys(tool.inputSchema as InputSchema).length > 0),
      'every tool has optional inputs to check',
    )
  })

  it('answer an explicit null exactly as a left-out argument, for every optional input of every tool', async () => {
    // Something to find and to resume, the same in both stores.
    for (const mcp of [withNulls, leftOut]) {
      await mcp.call('memory_add', {content: 'Prefers pnpm for installs', tags: ['tools']})
      await mcp.call('checkpoint_save', {state: {step: 1}, messages: ['one', 'two'], label: 'first'})
    }
    const compared: string[] = []
    for (const tool of withNulls.tools) {
      for (const key of optionalKeys(tool.inputSchema as InputSchema)) {
        const base = BASE[tool.name]!(key)
        const sentNull = await withNulls.call(tool.name, {...base, [key]: null})
        const omitted = await leftOut.call(
          tool.name,
          Object.fromEntries(Object.entries(base).filter(([name]) => name !== key)),
        )
        assert.equal(comparable(sentNull), comparable(omitted), `${tool.name} with ${key}: null`)
        compared.push(`${tool.name}.${key}${omitted.isError ? ' (an error either way)' : ''}`)
      }
    }
    // The comparisons made, so that one silently skipped shows; only a reflect "add" without its
    // content is refused, and refused in the same words.
    assert.deepEqual(compared, [
      'memory_search.agent_id',
      'memory_search.limit',
      'memory_search.tags',
      'memory_search.since',
      'memory_search.until',
      'memory_search.as_you_type',
      'memory_search.explain',
      'memory_add.agent_id',
      'memory_add.tags',
      'memory_add.thread',
      'memory_add.allow_duplicate',
      'checkpoint_save.agent_id',
      'checkpoint_save.messages',
      'checkpoint_save.label',
      'checkpoint_resume.agent_id',
      'checkpoint_resume.checkpoint_id',
      'checkpoint_resume.on_missing',
      'checkpoint_resume.include_messages',
      'checkpoint_resume.last_messages',
      'memory_reflect.agent_id',
      'memory_reflect.fact_id',
      'memory_reflect.fact_ids',
      'memory_reflect.content (an error either way)',
      'memory_reflect.tags',
      'memory_reflect.thread',
      'memory_reflect.reason',
    ])
  })

  it('still refuses null for a required input, naming it', async () => {
    const r = await withNulls.call('memory_search', {query: null})
    assert.equal(r.isError, true)
    assert.match((r.content[0] as {text: string}).text, /query/)
  })
})
