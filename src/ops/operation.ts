import * as v from 'valibot'

import {InputError, MemError} from '../errors.js'
import {describeIssue} from '../store/describe-issue.js'
import type {Store} from '../store/store.js'
import type {UnreadableAgent} from './each-agent.js'
import {AgentId} from './fields.js'
import {describeInputIssues} from './input-issues.js'

export interface OperationContext {
  store: Store
  /** The agent used when the input names none: --agent / MEM_AGENT / "default" of the process. */
  defaultAgent: string
}

export interface Annotations {
  readOnlyHint: boolean
  destructiveHint: boolean
  idempotentHint: boolean
  openWorldHint: false
}

/**
 * One operation, defined once: the CLI and the MCP server are adapters over this value.
 * `handler` knows nothing of either surface; `prose` is the human text both print.
 *
 * An operation is an MCP tool only when it is in the `operations` inventory (src/ops/index.ts);
 * every other one is the CLI's alone. `C` is what the handler works on: the store for the
 * operations on memory, something else for those on the files around it (`mem doctor` takes
 * the home folder, `mem mcp config` the package to launch).
 */
export interface Operation<
  I extends v.GenericSchema = v.GenericSchema,
  O extends v.GenericSchema = v.GenericSchema,
  C = OperationContext,
> {
  tool: string
  title: string
  description: string
  annotations: Annotations
  input: I
  output: O
  handler: (ctx: C, input: v.InferOutput<I>) => Promise<v.InferOutput<O>>
  prose: (payload: v.InferOutput<O>) => string
  /**
   * Agents a whole result had to leave out (their files could not be read): the CLI names them
   * on stderr after printing and ends with their errors' exit code.
   */
  leftOut?: (payload: v.InferOutput<O>) => readonly UnreadableAgent[]
  /**
   * A result that is printed whole yet ends non-zero, as a check that found problems left
   * does: exit 1. Failures are thrown as MemErrors instead, and mapped in src/errors.ts.
   */
  unfinished?: (payload: v.InferOutput<O>) => boolean
  /** The result already went out as data of its own (an export to stdout): the CLI prints nothing more. */
  printsNothing?: (payload: v.InferOutput<O>) => boolean
}

/** An operation of any schema, for inventories that hold all five. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyOperation = Operation<any, any>

export function defineOperation<I extends v.GenericSchema, O extends v.GenericSchema, C = OperationContext>(
  op: Operation<I, O, C>,
): Operation<I, O, C> {
  return op
}

/** Validates raw input against the operation's schema, then runs its handler. */
export async function runOperation<I extends v.GenericSchema, O extends v.GenericSchema, C>(
  op: Operation<I, O, C>,
  ctx: C,
  raw: unknown,
): Promise<v.InferOutput<O>> {
  return op.handler(ctx, parseInput(op.input, raw, op.tool))
}

/** `tool` names the operation in a message about an unknown argument ("memory_search takes …"). */
export function parseInput<S extends v.GenericSchema>(schema: S, raw: unknown, tool?: string): v.InferOutput<S> {
  const result = v.safeParse(schema, nullsAsAbsent(schema, raw))
  if (result.success) return result.output
  throw new InputError(
    `invalid input: ${describeInputIssues(result.issues, schema, {name: tool ?? 'this call', part: 'argument'}).join('; ')}`,
    Object.keys(entriesOf(schema) ?? {}),
  )
}

/**
 * An optional key sent as `null` is read as left out: models in structured-output modes send
 * `{"agent_id": null}` for "no agent_id". A required key stays null, and fails as it should.
 */
function nullsAsAbsent(schema: v.GenericSchema, raw: unknown): unknown {
  const entries = entriesOf(schema)
  if (!entries || typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw
  return Object.fromEntries(
    Object.entries(raw).filter(([key, value]) => !(value === null && entries[key]?.type === 'optional')),
  )
}

/** The keys of an object schema, also behind a pipe of checks. */
function entriesOf(schema: v.GenericSchema): Record<string, v.GenericSchema> | undefined {
  const s = schema as {entries?: Record<string, v.GenericSchema>; pipe?: v.GenericSchema[]}
  return s.entries ?? (s.pipe?.[0] ? entriesOf(s.pipe[0]) : undefined)
}

export function resolveAgent(ctx: OperationContext, agentId: string | undefined): string {
  if (agentId !== undefined) return agentId
  const parsed = v.safeParse(AgentId, ctx.defaultAgent)
  if (!parsed.success)
    throw new MemError(
      'invalid_input',
      `invalid default agent ${JSON.stringify(ctx.defaultAgent)} (from --agent or MEM_AGENT): ${describeIssue(parsed.issues[0])}`,
    )
  return parsed.output
}
