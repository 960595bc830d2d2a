import assert from 'node:assert/strict'
import {basename, dirname, join} from 'node:path'

import fc from 'fast-check'
import * as v from 'valibot'

import {MemError} from '../../src/errors.js'
import {AgentId, CheckpointId, FactId} from '../../src/ops/fields.js'
import {operations, runOperation} from '../../src/ops/index.js'
import {FileStore} from '../../src/store/file/file-store.js'
import {agentDir, agentsRoot, decodeAgentDir, encodeAgentDir, inside} from '../../src/store/file/paths.js'
import {tempHome} from '../helpers/mem.js'
import {snapshot} from './files.js'

/** Strings a hostile or careless caller might send: any code unit, path tricks, look-alikes, NUL, very long. */
const hostile = fc.oneof(
  fc.string({unit: 'binary', maxLength: 300}),
  fc.string({unit: 'grapheme', maxLength: 80}),
  fc.constantFrom(
    '..',
    '.',
    '../x',
    '../../etc/passwd',
    '/etc/passwd',
    'a/../../b',
    'a\0b',
    '\0',
    'C:\\x',
    'alice/..',
    '.lock',
    'ａｌｉｃｅ',
    'alice\u200b',
    'İ',
    'x'.repeat(10_000),
  ),
  fc
    .array(fc.constantFrom('..', '/', '.', 'a', '%', '2F', '\\', '\0', 'é'), {maxLength: 40})
    .map((parts) => parts.join('')),
)

const HOME = '/data/mem-home'

function refusedAsInput(fn: () => unknown): boolean {
  try {
    fn()
    return false
  } catch (error) {
    assert.ok(error instanceof MemError, `threw ${String(error)}`)
    assert.equal(error.code, 'invalid_input')
    return true
  }
}

describe('hostile ids and paths (property-based)', () => {
  it('agentDir of any string is a direct child of the agents folder, or refused', () => {
    fc.assert(
      fc.property(hostile, (id) => {
        let dir: string | undefined
        if (refusedAsInput(() => (dir = agentDir(HOME, id)))) return
        assert.equal(dirname(dir!), agentsRoot(HOME))
        assert.match(basename(dir!), /^(?:[a-z0-9_-]|%[0-9A-F]{2})+$/)
        assert.ok(Buffer.byteLength(basename(dir!)) <= 255)
        assert.equal(decodeAgentDir(basename(dir!)), id, 'the folder name decodes back to the same id')
      }),
      {numRuns: 3000},
    )
  })

  it('two different ids never share a folder, even on a case-insensitive disk', () => {
    fc.assert(
      fc.property(hostile, hostile, (a, b) => {
        fc.pre(a !== b)
        assert.notEqual(encodeAgentDir(a).toLowerCase(), encodeAgentDir(b).toLowerCase())
      }),
      {numRuns: 3000},
    )
    assert.notEqual(encodeAgentDir('Alice').toLowerCase(), encodeAgentDir('alice').toLowerCase())
  })

  it('inside() never returns a path outside its root or below a subfolder', () => {
    const root = join(HOME, 'agents', 'alice', 'facts')
    fc.assert(
      fc.property(hostile, (name) => {
        let full: string | undefined
        if (refusedAsInput(() => (full = inside(root, name)))) return
        assert.equal(dirname(full!), root)
        assert.equal(basename(full!), name)
        assert.ok(name !== '.' && name !== '..' && !name.includes('/') && !name.includes('\0'))
      }),
      {numRuns: 3000},
    )
  })

  it('a folder name mem cannot have made is not taken for an agent', () => {
    for (const name of ['%zz', '%', 'ALICE', '%61lice', '..', '.', '', '%2e%2e', 'a%2Fb%'])
      assert.equal(decodeAgentDir(name), undefined, name)
    assert.equal(decodeAgentDir('alice%2Fwork'), 'alice/work')
  })

  it('every id the AgentId schema accepts is short printable ASCII with a usable folder', () => {
    fc.assert(
      fc.property(fc.oneof(hostile, fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:@+/-]{0,70}$/)), (id) => {
        if (!v.is(AgentId, id)) return
        assert.match(id, /^[\x21-\x7e]{1,64}$/)
        const dir = agentDir(HOME, id)
        assert.equal(dirname(dir), agentsRoot(HOME))
      }),
      {numRuns: 3000},
    )
  })

  it('fact and checkpoint ids accepted by the schemas are 26-character ULIDs, nothing path-like', () => {
    fc.assert(
      fc.property(hostile, (id) => {
        for (const schema of [FactId, CheckpointId]) if (v.is(schema, id)) assert.match(id, /^[0-9A-HJKMNP-TV-Z]{26}$/)
      }),
      {numRuns: 2000},
    )
  })
})

describe('invalid input never changes a file (property-based, every operation)', function () {
  this.timeout(120_000)
  let home: ReturnType<typeof tempHome>
  let store: FileStore
  let factId: string

  before(async () => {
    home = tempHome()
    store = new FileStore(home.home)
    factId = (await store.addFact('alice', {content: 'deploys go out on Tuesdays', tags: ['ops']})).id
    await store.addFact('alice', {content: 'prefers pnpm', tags: []})
    await store.saveCheckpoint('alice', {state: {step: 1}})
  })
  after(() => home.cleanup())

  /** Inputs near the real shapes, with any field swapped for something hostile or of the wrong type. */
  function input(): fc.Arbitrary<unknown> {
    const value = fc.oneof(hostile, fc.anything({maxDepth: 3}), fc.constant(factId), fc.constant(undefined))
    return fc.oneof(
      fc.anything({maxDepth: 4}),
      fc.record(
        {
          agent_id: fc.oneof(hostile, fc.constant('alice'), fc.anything({maxDepth: 1})),
          content: value,
          query: value,
          tags: fc.oneof(fc.array(hostile, {maxLength: 40}), value),
          state: fc.oneof(fc.anything({maxDepth: 3}), fc.constant(nested(200))),
          messages: value,
          action: fc.oneof(fc.constantFrom('add', 'update', 'delete', 'merge'), value),
          fact_id: value,
          fact_ids: fc.oneof(fc.array(value, {maxLength: 3}), value),
          checkpoint_id: value,
          on_missing: fc.oneof(fc.constantFrom('error', 'empty'), value),
          limit: value,
        },
        {requiredKeys: []},
      ),
    )
  }

  for (const op of operations) {
    it(`${op.tool}: input the schema refuses leaves every file byte for byte`, async () => {
      const before = snapshot(home.home)
      let refused = 0
      await fc.assert(
        fc.asyncProperty(input(), async (raw) => {
          try {
            await runOperation(op, {store, defaultAgent: 'alice'}, raw)
          } catch (error) {
            if (error instanceof MemError && error.code === 'invalid_input') {
              refused++
              assert.deepEqual(snapshot(home.home), before)
              return
            }
            if (error instanceof MemError && ['not_found', 'no_checkpoint'].includes(error.code)) return
            throw error
          }
          // Valid input may write: take the new state as the baseline for the next run.
          Object.assign(before, snapshot(home.home))
        }),
        {numRuns: 300},
      )
      assert.ok(refused > 100, `only ${refused} inputs were refused: the generator is too tame`)
    })
  }
})

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {}
  for (let i = 0; i < depth; i++) value = {d: value}
  return value
}
