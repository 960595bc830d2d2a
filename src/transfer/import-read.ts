import * as v from 'valibot'

import {MemError} from '../errors.js'
import {LIMITS} from '../ops/limits.js'
import {describeInputIssues} from '../ops/input-issues.js'
import {resolveAgent, type OperationContext} from '../ops/operation.js'
import {newId} from '../store/ids.js'
import type {CheckpointRecord, FactRecord} from '../store/store.js'
import {conversationFormat, conversationTurns} from './chat-export-format.js'
import {
  CheckpointLine,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  FactLine,
  HeaderLine,
  factLineProblem,
  toRecord,
} from './export-format.js'
import type {ImportSource} from './import-source.js'
import {EntityLine, RelationLine, entityFacts, relationFact} from './memory-server-format.js'
import {firstByte, splitArrayItems, splitLines, withoutBom, type Piece} from './split-input.js'
import {TRANSCRIPT_FORMAT, TurnLine, turnFact} from './transcript-format.js'
import {decodeUtf8, InvalidUtf8} from './utf8.js'

/** A record a line gives, and where it goes. `bytes` is about what it weighs, to size the writes. */
export type Planned =
  | {line: number; agent: string; kind: 'fact'; record: FactRecord; byContent: boolean; bytes: number}
  | {line: number; agent: string; kind: 'checkpoint'; record: CheckpointRecord; bytes: number}

/** What one line (or one conversation of a chat export) gave. */
export type Entry =
  | {line: number; format: string; planned: Planned[]; replaced: boolean}
  | {line: number; problem: string; cause?: 'utf8' | 'too long'}

export interface ReadOptions {
  agent_id?: string
  /** Read bytes that are not UTF-8 as U+FFFD instead of rejecting their line. */
  replace_invalid_utf8: boolean
  /** One time for the records that have none (memory-server lines), the same on every read. */
  importedAt: number
}

/**
 * Every record of an import, one line (or one conversation) at a time. Reading the same
 * source twice gives the same entries, in the same order: the import checks on the first
 * read and writes on the second.
 */
export async function* readEntries(
  ctx: OperationContext,
  source: ImportSource,
  options: ReadOptions,
  onBytes?: (done: number) => void,
): AsyncGenerator<Entry> {
  const counted = counting(withoutBom(source.chunks()), onBytes)
  if ((await firstByte(withoutBom(source.chunks()))) === 0x5b) yield* conversations(ctx, counted, options)
  else yield* jsonLines(ctx, counted, options)
}

async function* counting(chunks: AsyncIterable<Buffer>, onBytes?: (done: number) => void): AsyncGenerator<Buffer> {
  let done = 0
  for await (const chunk of chunks) {
    yield chunk
    done += chunk.length
    onBytes?.(done)
  }
}

const tooLongLine = `longer than ${LIMITS.importLineBytes / 1024 / 1024} MiB, the most a line may be (a checkpoint holds at most 1 MiB of JSON, a fact 16,000 characters)`

async function* jsonLines(
  ctx: OperationContext,
  chunks: AsyncIterable<Buffer>,
  options: ReadOptions,
): AsyncGenerator<Entry> {
  let sawContent = false
  for await (const piece of splitLines(chunks, LIMITS.importLineBytes)) {
    const line = piece.at
    if (piece.tooLong) {
      sawContent = true
      yield {line, problem: tooLongLine, cause: 'too long'}
      continue
    }
    const decoded = tryDecode(piece)
    if (decoded instanceof InvalidUtf8 && !options.replace_invalid_utf8) {
      yield {line, problem: decoded.message, cause: 'utf8'}
      sawContent = true
      continue
    }
    const {text, replaced} = decoded instanceof InvalidUtf8 ? decodeUtf8(piece.bytes, true) : decoded
    if (text.trim() === '') continue
    const first = !sawContent
    sawContent = true
    try {
      const parsed = parseLine(ctx, options, {line, text, first, bytes: piece.bytes.length})
      yield {line, format: parsed.format, planned: parsed.planned, replaced}
    } catch (error) {
      if (error instanceof MemError && error.code === 'unsupported_version') throw error
      yield {line, problem: (error as Error).message}
    }
  }
}

function tryDecode(piece: Piece & {bytes: Buffer}): {text: string; replaced: boolean} | InvalidUtf8 {
  try {
    return decodeUtf8(piece.bytes, false)
  } catch (error) {
    if (error instanceof InvalidUtf8) return error
    throw error
  }
}

/**
 * ChatGPT's and Claude's exports are one JSON array, not lines: each conversation is read on
 * its own and its messages are turns. Everything is said to be on line 1, the conversation
 * named by its place in the file.
 */
async function* conversations(
  ctx: OperationContext,
  chunks: AsyncIterable<Buffer>,
  options: ReadOptions,
): AsyncGenerator<Entry> {
  let format: string | undefined
  try {
    for await (const piece of splitArrayItems(chunks, LIMITS.importConversationBytes)) {
      const where = `conversation ${piece.at}`
      if (piece.tooLong) {
        yield {
          line: 1,
          problem: `${where}: longer than ${LIMITS.importConversationBytes / 1024 / 1024} MiB, the most one conversation may be`,
          cause: 'too long',
        }
        continue
      }
      const decoded = tryDecode(piece)
      if (decoded instanceof InvalidUtf8 && !options.replace_invalid_utf8) {
        yield {
          line: 1,
          problem: `${where}: ${decoded.message.replace('of the line', 'of the conversation')}`,
          cause: 'utf8',
        }
        continue
      }
      const {text, replaced} = decoded instanceof InvalidUtf8 ? decodeUtf8(piece.bytes, true) : decoded
      let json: unknown
      try {
        json = JSON.parse(text)
      } catch (error) {
        throw new Error(`${where}: ${(error as Error).message}`)
      }
      format ??= conversationFormat(json)
      let turns
      try {
        turns = conversationTurns(format, json, piece.at)
      } catch (error) {
        yield {line: 1, problem: (error as Error).message}
        continue
      }
      const planned: Planned[] = []
      for (const turn of turns) {
        try {
          planned.push(turnPlan(ctx, options, 1, turn))
        } catch (error) {
          yield {line: 1, problem: `conversation ${turn.conversation}: ${(error as Error).message}`}
        }
      }
      yield {line: 1, format, planned, replaced}
    }
  } catch (error) {
    if (error instanceof MemError) throw error
    const message = (error as Error).message
    yield {
      line: 1,
      problem: message.startsWith('a JSON array')
        ? message
        : `the file is a JSON array but not valid JSON (${message})`,
    }
    return
  }
  if (format === undefined) yield {line: 1, format: 'chatgpt', planned: [], replaced: false}
}

interface RawLine {
  line: number
  text: string
  first: boolean
  bytes: number
}

function parseLine(
  ctx: OperationContext,
  options: ReadOptions,
  {line, text, first, bytes}: RawLine,
): {planned: Planned[]; format: string} {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new Error(`not valid JSON (${(error as Error).message})`)
  }
  const type =
    typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as {type?: unknown}).type : undefined
  switch (type) {
    case 'header': {
      const header = check(HeaderLine, json, 'header')
      if (!first) throw new Error('the header must be the first line')
      if (header.version > EXPORT_VERSION) {
        throw new MemError(
          'unsupported_version',
          `this file is ${EXPORT_FORMAT} version ${header.version}, written by a newer mem; this mem reads up to version ${EXPORT_VERSION}. Upgrade mem to import it; nothing was imported.`,
        )
      }
      return {planned: [], format: EXPORT_FORMAT}
    }
    case 'fact': {
      const fact = check(FactLine, json, 'fact')
      const problem = factLineProblem(fact)
      if (problem) throw new Error(`fact: ${problem}`)
      const agent = options.agent_id ?? fact.agent_id
      return {
        planned: [{line, agent, kind: 'fact', record: toRecord(fact), byContent: false, bytes}],
        format: EXPORT_FORMAT,
      }
    }
    case 'checkpoint': {
      const cp = check(CheckpointLine, json, 'checkpoint')
      return {
        planned: [{line, agent: options.agent_id ?? cp.agent_id, kind: 'checkpoint', record: toRecord(cp), bytes}],
        format: EXPORT_FORMAT,
      }
    }
    case 'turn':
      return {planned: [turnPlan(ctx, options, line, json)], format: TRANSCRIPT_FORMAT}
    case 'entity':
    case 'relation': {
      const facts =
        type === 'entity'
          ? entityFacts(check(EntityLine, json, 'entity'))
          : [relationFact(check(RelationLine, json, 'relation'))]
      const agent = resolveAgent(ctx, options.agent_id)
      const created_at = new Date(options.importedAt).toISOString()
      const planned = facts.map((f) => ({
        line,
        agent,
        kind: 'fact' as const,
        record: {id: newId(options.importedAt), content: f.content, tags: f.tags, created_at},
        byContent: true,
        bytes: f.content.length,
      }))
      return {planned, format: 'mcp-memory'}
    }
    default:
      throw new Error(
        'each line must be a JSON object whose "type" is header, fact or checkpoint (mem export), turn (a conversation transcript), or entity or relation (MCP memory server)',
      )
  }
}

/** A turn of a transcript, or a message of a chat export, as the fact it becomes. */
function turnPlan(ctx: OperationContext, options: ReadOptions, line: number, json: unknown): Planned {
  const turn = check(TurnLine, json, 'turn')
  const fact = turnFact(turn)
  const agent = options.agent_id ?? turn.agent_id ?? resolveAgent(ctx, undefined)
  return {
    line,
    agent,
    kind: 'fact',
    record: {id: newId(Date.parse(fact.created_at)), ...fact},
    byContent: true,
    bytes: fact.content.length,
  }
}

function check<S extends v.GenericSchema>(schema: S, value: unknown, what: string): v.InferOutput<S> {
  const result = v.safeParse(schema, value)
  if (!result.success)
    throw new Error(
      `${what}: ${describeInputIssues(result.issues, schema, {name: `a ${what} line`, part: 'key'})
        .slice(0, 3)
        .join('; ')}`,
    )
  return result.output
}
