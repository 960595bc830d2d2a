import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import fc from 'fast-check'

import {LIMITS} from '../../src/ops/limits.js'
import {canonicalJson, canonicalOfText, resumeProseParts} from '../helpers/canonical-json.js'
import {connectMcp, type McpSession} from '../helpers/mcp.js'
import {mem, tempHome} from '../helpers/mem.js'
import {freshDatabase} from '../helpers/postgres.js'

/**
 * Any JSON a user saves as a checkpoint comes back the same, whatever its keys: through save and
 * resume, export and import, and store copy, on the files and on PostgreSQL, through the CLI and
 * MCP. "The same" is byte for byte once every object's keys are sorted (canonicalJson).
 *
 * Each run draws a batch of checkpoints and pushes the whole batch through every path, so a run
 * costs a few processes rather than a few per checkpoint; the CLI saves and resumes (one
 * process each) take the first CLI_SHARE of the batch. The seed is fixed; a failure prints it
 * with its path, and this reruns exactly that batch:
 *
 *     MEM_TEST_SEED=<seed> MEM_TEST_PATH=<path> npx mocha test/store-conformance/state-keys.property.test.ts
 *
 * MEM_TEST_RUNS sets how many batches (2 by default). Shrinking is off: every step of it would
 * start the processes again; the failing batch is printed whole instead.
 */
const SEED = Number(process.env.MEM_TEST_SEED ?? 20_261_204)
const PATH = process.env.MEM_TEST_PATH
const RUNS = Number(process.env.MEM_TEST_RUNS ?? 2)
const CLI_SHARE = 2

/** Keys a plain JavaScript object treats specially, and keys easy to get wrong: empty, numeric, mem's own field names. */
const TRICKY_KEYS = [
  '__proto__',
  'constructor',
  'prototype',
  '',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '__defineGetter__',
  'length',
  '0',
  '-1',
  'state',
  'messages',
  'id',
  'type',
  'agent_id',
]

const key = fc.oneof(
  {weight: 4, arbitrary: fc.constantFrom(...TRICKY_KEYS)},
  {weight: 2, arbitrary: fc.string({unit: 'grapheme', maxLength: 8})},
  {weight: 1, arbitrary: fc.string({unit: 'binary', maxLength: 6})},
)

/** Well-formed strings only: a lone surrogate has no UTF-8 form, and an export writes U+FFFD for it (docs/export-format.md). */
const text = fc.oneof(fc.string({unit: 'grapheme', maxLength: 12}), fc.string({unit: 'binary', maxLength: 12}))

const primitive = fc.oneof(
  text,
  fc.boolean(),
  fc.constant(null),
  fc.integer(),
  fc.double({noNaN: true, noDefaultInfinity: true}),
)

/** An object built with defineProperty semantics (Object.fromEntries), so `__proto__` is an own key. */
function objectOf(entries: [string, unknown][]): Record<string, unknown> {
  return Object.fromEntries(entries) as Record<string, unknown>
}

function entriesOf<T>(value: fc.Arbitrary<T>, maxLength: number): fc.Arbitrary<[string, T][]> {
  return fc.uniqueArray(fc.tuple(key, value), {selector: ([k]) => k, maxLength})
}

const {json} = fc.letrec<{json: unknown; array: unknown[]; object: Record<string, unknown>}>((tie) => ({
  json: fc.oneof({depthSize: 'small', maxDepth: 5}, primitive, tie('array'), tie('object')),
  array: fc.array(tie('json'), {maxLength: 4}),
  object: entriesOf(tie('json'), 5).map(objectOf),
}))

/** A value nested `levels` deep, each level an object under a tricky key or an array. */
function nested(levels: (string | undefined)[], leaf: unknown): unknown {
  return levels.reduceRight<unknown>((inner, k) => (k === undefined ? [inner] : objectOf([[k, inner]])), leaf)
}

/** Nesting up to the limit, often right at it: the state is level 1, so a value in it may be 63 levels deep. */
const deep = fc
  .oneof(fc.constant(LIMITS.jsonDepth - 1), fc.integer({min: 1, max: LIMITS.jsonDepth - 1}))
  .chain((n) => fc.tuple(fc.array(fc.option(key, {nil: undefined}), {minLength: n, maxLength: n}), primitive))
  .map(([levels, leaf]) => nested(levels, leaf))

const stateValue = fc.oneof({weight: 4, arbitrary: json}, {weight: 1, arbitrary: deep})

/** The keys of the report, each at the top of about half the states, then any others. */
const SPECIAL_KEYS = ['__proto__', 'constructor', 'prototype']

const state = fc
  .tuple(fc.subarray(SPECIAL_KEYS), fc.array(stateValue, {minLength: 3, maxLength: 3}), entriesOf(stateValue, 8))
  .map(([special, values, rest]) =>
    objectOf([
      ...special.map((k, i): [string, unknown] => [k, values[i]]),
      ...rest.filter(([k]) => !special.includes(k)),
    ]),
  )

const messages = fc.option(fc.array(fc.oneof(entriesOf(json, 5).map(objectOf), json), {maxLength: 5}), {nil: undefined})

interface Example {
  /** The JSON text sent, as `mem save` reads it from stdin and an MCP client sends it. */
  state: string
  messages: string | undefined
}

const batch = fc.array(
  fc.record({state, messages}).map((e): Example => ({
    state: JSON.stringify(e.state),
    messages: e.messages === undefined ? undefined : JSON.stringify(e.messages),
  })),
  {minLength: CLI_SHARE, maxLength: 12},
)

/** What a read gave back, to compare with what was saved. */
interface Read {
  state: unknown
  messages?: unknown
}

type Env = Record<string, string | undefined>

/** One checkpoint saved: by whom, for which agent, with what. */
interface Saved {
  id: string
  agent: string
  example: Example
}

function expectSame(route: string, saved: Saved, read: Read): void {
  const where = `${route}, checkpoint ${saved.id} of agent ${saved.agent}`
  assert.equal(canonicalJson(read.state), canonicalOfText(saved.example.state), `${where}: state`)
  if ('messages' in read)
    assert.equal(
      canonicalJson(read.messages ?? []),
      canonicalOfText(saved.example.messages ?? '[]'),
      `${where}: messages`,
    )
}

function ok(home: string, env: Env, args: string[], input?: string): string {
  const r = mem(home, args, {env, input})
  assert.equal(r.code, 0, `mem ${args.join(' ')}: ${r.stderr}`)
  return r.stdout
}

async function withMcp<T>(home: string, env: Env, use: (mcp: McpSession) => Promise<T>): Promise<T> {
  const mcp = await connectMcp(home, {env})
  try {
    return await use(mcp)
  } finally {
    await mcp.close()
  }
}

/** checkpoint_resume of each checkpoint by id, from a server started after they were written: its payload and its prose. */
async function resumeOverMcp(route: string, home: string, env: Env, saved: Saved[]): Promise<void> {
  await withMcp(home, env, async (mcp) => {
    for (const s of saved) {
      const r = await mcp.call('checkpoint_resume', {agent_id: s.agent, checkpoint_id: s.id, include_messages: true})
      assert.notEqual(r.isError, true, `${route}: ${JSON.stringify(r.content)}`)
      expectSame(`${route} (MCP payload)`, s, r.structuredContent as unknown as Read)
      expectSame(`${route} (MCP text)`, s, resumeProseParts((r.content[0] as {text: string}).text))
    }
  })
}

/** `mem export --all` holds a line for each checkpoint, with its state and messages as saved. */
function checkExport(route: string, exported: string, saved: Saved[]): void {
  const lines = new Map<string, Read>()
  for (const line of exported.split('\n').filter((l) => l !== '')) {
    const value = JSON.parse(line) as {type: string; id: string; state: unknown; messages?: unknown}
    if (value.type === 'checkpoint') lines.set(value.id, {state: value.state, messages: value.messages})
  }
  assert.equal(lines.size, saved.length, `${route}: one line per checkpoint`)
  for (const s of saved) expectSame(`${route} (mem export)`, s, lines.get(s.id)!)
}

/** The whole round for one store: save (MCP and CLI), resume (both), export, import, store copy. */
async function roundTrip(store: 'files' | 'PostgreSQL', examples: Example[]): Promise<void> {
  const database = () => (store === 'files' ? Promise.resolve(undefined) : freshDatabase())
  const source = tempHome()
  const imported = tempHome()
  const copied = tempHome()
  try {
    const env: Env = {MEM_STORE: await database()}
    const saved: Saved[] = []
    await withMcp(source.home, env, async (mcp) => {
      for (const example of examples) {
        const args: Record<string, unknown> = {agent_id: 'mcp', state: JSON.parse(example.state) as unknown}
        if (example.messages !== undefined) args.messages = JSON.parse(example.messages) as unknown
        const r = await mcp.call('checkpoint_save', args)
        assert.notEqual(r.isError, true, JSON.stringify(r.content))
        saved.push({id: (r.structuredContent as {checkpoint_id: string}).checkpoint_id, agent: 'mcp', example})
      }
    })
    for (const [i, example] of examples.slice(0, CLI_SHARE).entries()) {
      const args = ['save', '--agent', 'cli', '--json']
      if (example.messages !== undefined) {
        const file = join(source.home, `messages-${i}.json`)
        writeFileSync(file, example.messages)
        args.push('--messages-file', file)
      }
      const out = JSON.parse(ok(source.home, env, args, example.state)) as {checkpoint_id: string}
      saved.push({id: out.checkpoint_id, agent: 'cli', example})
    }

    // mem resume of the CLI's and as many of MCP's: --json and prose in turn, the fast path and oclif in turn.
    const byCli = [
      ...saved.filter((s) => s.agent === 'cli'),
      ...saved.filter((s) => s.agent === 'mcp').slice(0, CLI_SHARE),
    ]
    for (const [i, s] of byCli.entries()) {
      const json = i % 2 === 0
      const args = ['resume', '--agent', s.agent, '--id', s.id, '--messages', ...(json ? ['--json'] : [])]
      const out = ok(source.home, {...env, MEM_NO_FAST_PATH: i % 4 < 2 ? undefined : '1'}, args)
      expectSame(
        `${store}: mem resume${json ? ' --json' : ''}`,
        s,
        json ? (JSON.parse(out) as Read) : resumeProseParts(out),
      )
    }
    await resumeOverMcp(`${store}: checkpoint_resume`, source.home, env, saved)

    const exported = ok(source.home, env, ['export', '--all'])
    checkExport(`${store}: export`, exported, saved)

    const importEnv: Env = {MEM_STORE: await database()}
    ok(imported.home, importEnv, ['import', '-'], exported)
    checkExport(`${store}: export, import, export`, ok(imported.home, importEnv, ['export', '--all']), saved)
    await resumeOverMcp(`${store}: export, import, checkpoint_resume`, imported.home, importEnv, saved)

    // Into the other store: the files into a database, a database into a folder.
    const copyEnv: Env = {MEM_STORE: store === 'files' ? await freshDatabase() : undefined}
    ok(source.home, env, ['store', 'copy', '--to', copyEnv.MEM_STORE ?? copied.home])
    const other = store === 'files' ? 'PostgreSQL' : 'files'
    checkExport(`${store}: store copy to ${other}, export`, ok(copied.home, copyEnv, ['export', '--all']), saved)
    await resumeOverMcp(`${store}: store copy to ${other}, checkpoint_resume`, copied.home, copyEnv, saved)
  } finally {
    source.cleanup()
    imported.cleanup()
    copied.cleanup()
  }
}

describe('any JSON saved as a checkpoint comes back the same (property-based)', function () {
  this.timeout(30 * 60_000)
  for (const store of ['files', 'PostgreSQL'] as const) {
    it(`${store}: save and resume, export and import, store copy, through the CLI and MCP`, async () => {
      await fc.assert(
        fc.asyncProperty(batch, (examples) => roundTrip(store, examples)),
        {seed: SEED, path: PATH, numRuns: RUNS, endOnFailure: true},
      )
    })
  }
})
