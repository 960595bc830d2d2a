import type * as v from 'valibot'

import {MemError, UNFINISHED_EXIT, asMemError, errorJson, exitCodeOf, type ErrorCode} from '../errors.js'
import type {UnreadableAgent} from '../ops/each-agent.js'
import type {Operation} from '../ops/operation.js'
import {inCliWords, type FieldWords} from './cli-words.js'
import {forStream, inertStrings} from './inert-text.js'
import {jsonPieces} from './json-pieces.js'
import {renderers} from './render.js'
import {writeToStdout} from './stdout-writer.js'
import {wantsStyle} from './terminal-style.js'

/**
 * What a command prints, shared by MemCommand and the fast path (src/fast.ts) so both write
 * the same bytes.
 */
export function printLine(text: string): void {
  process.stdout.write(`${text}\n`)
}

/** A payload as one line of JSON, written a piece at a time when it is large (see jsonPieces). */
export function printJson(value: unknown): Promise<void> {
  return writeToStdout(asLine(jsonPieces(value)))
}

/** The pieces with a newline after the last: a small payload is still one write. */
function* asLine(pieces: Iterable<string>): Generator<string> {
  let last = ''
  for (const piece of pieces) {
    if (last !== '') yield last
    last = piece
  }
  yield `${last}\n`
}

/**
 * The prose, byte for byte, unless a person is reading a terminal: then its coloured twin (or,
 * under NO_COLOR, the prose), drawn from a copy of the payload whose stored text is inert.
 */
export function humanText<I extends v.GenericSchema, O extends v.GenericSchema, C>(
  op: Operation<I, O, C>,
  payload: v.InferOutput<O>,
): string {
  if (process.stdout.isTTY !== true) return op.prose(payload)
  const shown = inertStrings(payload)
  const render = renderers[op.tool]
  return render && wantsStyle(process.stdout, process.env) ? render(shown as never, new Date()) : op.prose(shown)
}

/** Text of mem's own that may quote stored text (a report, a summary), inert at a terminal. */
export function printText(text: string): void {
  printLine(forStream(process.stdout, text))
}

/** An operation's result: its payload under --json, else its prose. */
async function printResult<I extends v.GenericSchema, O extends v.GenericSchema, C>(
  op: Operation<I, O, C>,
  payload: v.InferOutput<O>,
  json: boolean,
): Promise<void> {
  if (json) await printJson(payload)
  else printLine(humanText(op, payload))
}

/**
 * Everything a command does with an operation's result, for every command alike: prints it
 * (unless it went out as data of its own), names the agents it left out, and returns the exit
 * code to end with.
 */
export async function printOutcome<I extends v.GenericSchema, O extends v.GenericSchema, C>(
  op: Operation<I, O, C>,
  payload: v.InferOutput<O>,
  json: boolean,
): Promise<number> {
  if (op.printsNothing?.(payload) !== true) await printResult(op, payload, json)
  const code = reportUnreadable(op.leftOut?.(payload) ?? [])
  return Math.max(code, op.unfinished?.(payload) === true ? UNFINISHED_EXIT : 0)
}

/**
 * The agents an all-agents command left out: each named on stderr with why; returns the exit
 * code to end with (0 when none), so the healthy agents are listed or exported first.
 */
export function reportUnreadable(unreadable: readonly UnreadableAgent[]): number {
  let code = 0
  for (const u of unreadable) {
    const error = new MemError(u.code as ErrorCode, u.message)
    process.stderr.write(forStream(process.stderr, `Error: agent ${u.agent_id} was left out: ${error.message}\n`))
    code = Math.max(code, exitCodeOf(error) ?? 1)
  }
  return code
}

/**
 * A failure: `Error: …` on stderr, `{"error": …}` on stdout under --json; returns the exit code.
 * `words` is how the command names the input fields it fills, so input errors name its flags.
 */
export async function reportFailure(error: unknown, json: boolean, words: FieldWords = {}): Promise<number> {
  const memError = asMemError(inCliWords(error, words))
  process.stderr.write(forStream(process.stderr, `Error: ${memError.message}\n`))
  if (json) await printJson(errorJson(memError))
  return exitCodeOf(memError)
}
