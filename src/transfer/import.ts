import {isDeepStrictEqual} from 'node:util'

import * as v from 'valibot'

import {MemError} from '../errors.js'
import {AgentId} from '../ops/fields.js'
import {defineOperation, resolveAgent, runOperation, type OperationContext} from '../ops/operation.js'
import {describeInputIssues} from '../ops/input-issues.js'
import {newId} from '../store/ids.js'
import {isLive} from '../store/records.js'
import {
  PartialImport,
  type CheckpointRecord,
  type FactRecord,
  type ImportBatch,
  type ImportResult,
} from '../store/store.js'
import {
  CheckpointLine,
  EXPORT_FORMAT,
  EXPORT_VERSION,
  FactLine,
  HeaderLine,
  factLineProblem,
  toRecord,
} from './export-format.js'
import {EntityLine, RelationLine, entityFacts, relationFact} from './memory-server-format.js'
import {exportedTurns} from './chat-export-format.js'
import {TRANSCRIPT_FORMAT, TurnLine, turnFact} from './transcript-format.js'
import type {OnProgress, TransferContext} from './progress.js'
import {plural} from '../plural.js'

export const ImportInput = v.strictObject({
  /** The whole file, JSON Lines. */
  text: v.string(),
  /** Put every record into this agent instead of the one each line names. */
  agent_id: v.optional(AgentId),
  dry_run: v.optional(v.boolean(), false),
  /** Import the valid lines even when some are rejected (they are still reported). */
  skip_invalid: v.optional(v.boolean(), false),
})
export type ImportInput = v.InferInput<typeof ImportInput>

const LineNote = v.object({line: v.number(), message: v.string()})
export type LineNote = v.InferOutput<typeof LineNote>

export const ImportReport = v.object({
  dry_run: v.boolean(),
  /** Which formats the lines were in: "mem.export", "mcp-memory", "transcript", or "chatgpt" or "claude" (their conversation exports). */
  formats: v.array(v.string()),
  added: v.object({facts: v.number(), checkpoints: v.number()}),
  agents: v.array(v.object({agent_id: v.string(), facts: v.number(), checkpoints: v.number()})),
  /** Stored facts that the file shows replaced or deleted since: that history is applied. */
  updated: v.array(LineNote),
  skipped: v.array(LineNote),
  rejected: v.array(LineNote),
})
export type ImportReport = v.InferOutput<typeof ImportReport>

/** Some lines failed validation, so nothing was changed. Carries the full report. */
export class ImportRejected extends MemError {
  constructor(readonly report: ImportReport) {
    const shown = report.rejected.slice(0, 20).map((r) => `  line ${r.line}: ${r.message}`)
    const more =
      report.rejected.length > shown.length
        ? [`  … and ${report.rejected.length - shown.length} more (--json lists them all)`]
        : []
    super(
      'invalid_input',
      [
        `${plural(report.rejected.length, 'line')} rejected; nothing was imported. Fix the lines, or import the rest with --skip-invalid:`,
        ...shown,
        ...more,
      ].join('\n'),
      // Under --json every bad line is listed, beside the usual code and message.
      {rejected: report.rejected, skipped: report.skipped.length},
    )
  }
}

type Planned =
  | {line: number; agent: string; kind: 'fact'; record: FactRecord; byContent: boolean}
  | {line: number; agent: string; kind: 'checkpoint'; record: CheckpointRecord}

interface Parsed {
  planned: Planned[]
  rejected: LineNote[]
  formats: Set<string>
}

/**
 * `mem import`: reads every line first and decides, for each record, whether it is new,
 * already present, or wrong; only then (and only if nothing is wrong, unless asked) does
 * it write, one locked write per agent.
 */
async function importAll(ctx: TransferContext, input: v.InferOutput<typeof ImportInput>): Promise<ImportReport> {
  const {onProgress} = ctx
  const parsed = parseLines(ctx, input, onProgress)
  const {batches, skipped, rejected} = await plan(ctx, parsed)
  const report: ImportReport = {
    dry_run: input.dry_run,
    formats: [...parsed.formats].sort(),
    added: {facts: 0, checkpoints: 0},
    agents: [],
    updated: [],
    skipped,
    rejected: [...parsed.rejected, ...rejected].sort((a, b) => a.line - b.line),
  }
  if (report.rejected.length > 0 && !input.skip_invalid) throw new ImportRejected(report)

  const total = [...batches.values()].reduce((n, b) => n + b.facts.length + b.checkpoints.length + b.marks.length, 0)
  let done = 0
  onProgress?.('Writing', 0, total)
  for (const [agent, batch] of batches) {
    const lineOf = new Map([...batch.facts, ...batch.checkpoints].map((p) => [p.record.id, p.line]))
    const records: ImportBatch = {
      facts: sortById(batch.facts.map((p) => p.record)),
      checkpoints: sortByTime(batch.checkpoints.map((p) => p.record)),
      marks: batch.marks.map((m) => ({id: m.id, patch: m.patch})),
    }
    const result = input.dry_run
      ? {
          facts: records.facts.map((f) => f.id),
          checkpoints: records.checkpoints.map((c) => c.id),
          marked: batch.marks.map((m) => m.id),
        }
      : await writeBatch(ctx, agent, records, report)
    // Another process may have added the same ids, or changed the same facts, since the plan was made.
    const addedIds = new Set([...result.facts, ...result.checkpoints])
    for (const [id, line] of lineOf)
      if (!addedIds.has(id)) report.skipped.push({line, message: `${id} was added meanwhile by another mem process`})
    const markedIds = new Set(result.marked)
    for (const m of batch.marks) {
      if (markedIds.has(m.id))
        report.updated.push({
          line: m.line,
          message: `fact ${m.id} of agent ${agent} was ${m.patch.deleted_at ? 'deleted' : `replaced by ${m.patch.superseded_by}`} since it was stored`,
        })
      else report.skipped.push({line: m.line, message: `fact ${m.id} was changed meanwhile by another mem process`})
    }
    report.agents.push({agent_id: agent, facts: result.facts.length, checkpoints: result.checkpoints.length})
    report.added.facts += result.facts.length
    report.added.checkpoints += result.checkpoints.length
    done += lineOf.size + batch.marks.length
    onProgress?.('Writing', done, total)
  }
  report.skipped.sort((a, b) => a.line - b.line)
  report.updated.sort((a, b) => a.line - b.line)
  return report
}

/** One agent's locked write; a failure says what the import had stored by then, and that a re-run is safe. */
async function writeBatch(
  ctx: OperationContext,
  agent: string,
  records: ImportBatch,
  report: ImportReport,
): Promise<ImportResult> {
  try {
    return await ctx.store.importRecords(agent, records)
  } catch (error) {
    if (!(error instanceof MemError) || error.code !== 'io_error') throw error
    const before =
      report.agents.length === 0
        ? ''
        : ` ${plural(report.added.facts, 'fact')} and ${plural(report.added.checkpoints, 'checkpoint')} of ${plural(report.agents.length, 'agent')} before it were imported in full.`
    const again =
      error instanceof PartialImport ? '' : ' Running the import again is safe: it skips what is already stored.'
    throw new MemError('io_error', `The import stopped at agent "${agent}": ${error.message}${before}${again}`)
  }
}

function parseLines(ctx: OperationContext, input: v.InferOutput<typeof ImportInput>, onProgress?: OnProgress): Parsed {
  const text = input.text.replace(/^\uFEFF/, '')
  const out: Parsed = {planned: [], rejected: [], formats: new Set()}
  // ChatGPT's and Claude's exports are one JSON array, not lines: their messages are turns.
  try {
    const exported = exportedTurns(text)
    if (exported) {
      out.formats.add(exported.format)
      for (const turn of exported.turns) {
        try {
          out.planned.push(turnPlan(ctx, input, 1, turn))
        } catch (error) {
          out.rejected.push({line: 1, message: `conversation ${turn.conversation}: ${(error as Error).message}`})
        }
      }
      return out
    }
  } catch (error) {
    out.rejected.push({line: 1, message: (error as Error).message})
    return out
  }
  const lines = text.split('\n')
  const importedAt = Date.now()
  let sawContent = false
  for (const [i, text] of lines.entries()) {
    const line = i + 1
    if (i % 1000 === 0) onProgress?.('Checking', i, lines.length)
    if (text.trim() === '') continue
    const first = !sawContent
    sawContent = true
    try {
      const parsed = parseLine(ctx, input, {line, text, first, importedAt})
      out.planned.push(...parsed.planned)
      out.formats.add(parsed.format)
    } catch (error) {
      if (error instanceof MemError && error.code === 'unsupported_version') throw error
      out.rejected.push({line, message: (error as Error).message})
    }
  }
  onProgress?.('Checking', lines.length, lines.length)
  return out
}

interface RawLine {
  line: number
  text: string
  first: boolean
  importedAt: number
}

function parseLine(
  ctx: OperationContext,
  input: v.InferOutput<typeof ImportInput>,
  {line, text, first, importedAt}: RawLine,
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
      return {
        planned: [
          {line, agent: input.agent_id ?? fact.agent_id, kind: 'fact', record: toRecord(fact), byContent: false},
        ],
        format: EXPORT_FORMAT,
      }
    }
    case 'checkpoint': {
      const cp = check(CheckpointLine, json, 'checkpoint')
      return {
        planned: [{line, agent: input.agent_id ?? cp.agent_id, kind: 'checkpoint', record: toRecord(cp)}],
        format: EXPORT_FORMAT,
      }
    }
    case 'turn':
      return {planned: [turnPlan(ctx, input, line, json)], format: TRANSCRIPT_FORMAT}
    case 'entity':
    case 'relation': {
      const facts =
        type === 'entity'
          ? entityFacts(check(EntityLine, json, 'entity'))
          : [relationFact(check(RelationLine, json, 'relation'))]
      const agent = resolveAgent(ctx, input.agent_id)
      const created_at = new Date(importedAt).toISOString()
      const planned = facts.map((f) => ({
        line,
        agent,
        kind: 'fact' as const,
        record: {id: newId(importedAt), content: f.content, tags: f.tags, created_at},
        byContent: true,
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
function turnPlan(
  ctx: OperationContext,
  input: v.InferOutput<typeof ImportInput>,
  line: number,
  json: unknown,
): Planned {
  const turn = check(TurnLine, json, 'turn')
  const fact = turnFact(turn)
  const agent = input.agent_id ?? turn.agent_id ?? resolveAgent(ctx, undefined)
  return {line, agent, kind: 'fact', record: {id: newId(Date.parse(fact.created_at)), ...fact}, byContent: true}
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

interface AgentBatch {
  facts: Extract<Planned, {kind: 'fact'}>[]
  checkpoints: Extract<Planned, {kind: 'checkpoint'}>[]
  marks: {line: number; id: string; patch: Partial<FactRecord>}[]
}

/** Compares each record with what the agent already has and with earlier lines. */
async function plan(
  ctx: OperationContext,
  parsed: Parsed,
): Promise<{batches: Map<string, AgentBatch>; skipped: LineNote[]; rejected: LineNote[]}> {
  const batches = new Map<string, AgentBatch>()
  const skipped: LineNote[] = []
  const rejected: LineNote[] = []
  const byAgent = new Map<string, Planned[]>()
  for (const p of parsed.planned) {
    const list = byAgent.get(p.agent)
    if (list) list.push(p)
    else byAgent.set(p.agent, [p])
  }
  for (const [agent, planned] of byAgent) {
    const stored = new Map<string, FactRecord | CheckpointRecord>()
    const storedContent = new Set<string>()
    for (const fact of await ctx.store.listFacts(agent)) {
      stored.set(fact.id, fact)
      if (isLive(fact)) storedContent.add(contentKey(fact))
    }
    for (const cp of await ctx.store.listCheckpoints(agent)) stored.set(cp.id, cp)
    const earlier = new Map<string, Planned>()
    const earlierContent = new Map<string, number>()
    const batch: AgentBatch = {facts: [], checkpoints: [], marks: []}
    for (const p of planned) {
      const what = `${p.kind} ${p.record.id}`
      if (p.kind === 'fact' && p.byContent) {
        const key = contentKey(p.record)
        if (storedContent.has(key))
          skipped.push({line: p.line, message: `agent ${agent} already has the fact "${p.record.content}"`})
        else if (earlierContent.has(key))
          skipped.push({
            line: p.line,
            message: `repeats the fact "${p.record.content}" of line ${earlierContent.get(key)}`,
          })
        else {
          earlierContent.set(key, p.line)
          batch.facts.push(p)
        }
        continue
      }
      const have = stored.get(p.record.id)
      const seen = earlier.get(p.record.id)
      if (have !== undefined) {
        const history =
          p.kind === 'fact'
            ? compareHistory(have as FactRecord, p.record)
            : isDeepStrictEqual(have, p.record)
              ? 'same'
              : 'different'
        if (history === 'same') skipped.push({line: p.line, message: `agent ${agent} already has ${what}`})
        else if (history === 'stored is later')
          skipped.push({line: p.line, message: `agent ${agent} already has ${what}, replaced or deleted since`})
        else if (history === 'file is later' && p.kind === 'fact')
          batch.marks.push({line: p.line, id: p.record.id, patch: marksOf(p.record)})
        else
          rejected.push({
            line: p.line,
            message: `agent ${agent} already has ${what} and it differs from this line; mem never overwrites a record on import`,
          })
      } else if (seen !== undefined) {
        if (isDeepStrictEqual(seen.record, p.record))
          skipped.push({line: p.line, message: `repeats ${what} of line ${seen.line}`})
        else
          rejected.push({
            line: p.line,
            message: `${what} was already given on line ${seen.line} with different content`,
          })
      } else {
        earlier.set(p.record.id, p)
        if (p.kind === 'fact') {
          batch.facts.push(p)
          if (isLive(p.record)) earlierContent.set(contentKey(p.record), p.line)
        } else batch.checkpoints.push(p)
      }
    }
    if (batch.facts.length + batch.checkpoints.length + batch.marks.length > 0) batches.set(agent, batch)
  }
  return {batches, skipped, rejected}
}

const MARKS = ['superseded_by', 'superseded_at', 'deleted_at', 'reason'] as const

function marksOf(fact: FactRecord): Partial<FactRecord> {
  return Object.fromEntries(MARKS.filter((k) => fact[k] !== undefined).map((k) => [k, fact[k]]))
}

/**
 * The same fact in two places differs only in its history marks when one copy was replaced
 * or deleted after the other was made. Anything else is a different record under one id.
 */
function compareHistory(
  stored: FactRecord,
  line: FactRecord,
): 'same' | 'stored is later' | 'file is later' | 'different' {
  if (isDeepStrictEqual(stored, line)) return 'same'
  const strip = (f: FactRecord): FactRecord => {
    const copy = {...f}
    for (const k of MARKS) delete copy[k]
    return copy
  }
  if (!isDeepStrictEqual(strip(stored), strip(line))) return 'different'
  if (isLive(line)) return 'stored is later'
  if (isLive(stored)) return 'file is later'
  return 'different'
}

/**
 * Same text and same tags (in any order) is the same fact for a file that has no ids; a turn
 * of a conversation is the same only in the same conversation at the same time (people say
 * "thanks" more than once).
 */
function contentKey(fact: FactRecord): string {
  return JSON.stringify([
    fact.content,
    [...fact.tags].sort(),
    ...(fact.thread === undefined ? [] : [fact.thread, fact.created_at]),
  ])
}

function sortById(facts: FactRecord[]): FactRecord[] {
  return facts.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}

/** Oldest first, so the newest imported checkpoint is the one `mem resume` finds among them. */
function sortByTime(checkpoints: CheckpointRecord[]): CheckpointRecord[] {
  return checkpoints.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id))
}

export const memImport = defineOperation({
  tool: 'import',
  title: 'Import',
  description:
    'Adds the facts and checkpoints of a mem export, a conversation transcript or an MCP memory server file.',
  annotations: {readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false},
  input: ImportInput,
  output: ImportReport,
  handler: importAll,
  prose: importProse,
})

/** The import without a command line around it (benchmarks load their sets with it). */
export function importRecords(ctx: OperationContext, raw: ImportInput, onProgress?: OnProgress): Promise<ImportReport> {
  return runOperation(memImport, {...ctx, onProgress}, raw)
}

export function importProse(report: ImportReport): string {
  const verb = report.dry_run ? 'Would import' : 'Imported'
  const perAgent = report.agents.map((a) => `${a.agent_id}: ${a.facts}/${a.checkpoints}`).join(', ')
  const lines = [
    `${verb} ${plural(report.added.facts, 'fact')} and ${plural(report.added.checkpoints, 'checkpoint')}${perAgent ? ` (facts/checkpoints per agent: ${perAgent})` : ''}.`,
  ]
  if (report.updated.length > 0)
    lines.push(
      `${report.dry_run ? 'Would mark' : 'Marked'} ${plural(report.updated.length, 'stored fact')} replaced or deleted, as the file shows: ${lineList(report.updated)}.`,
    )
  if (report.skipped.length > 0)
    lines.push(`Skipped ${plural(report.skipped.length, 'record')} already present: ${lineList(report.skipped)}.`)
  if (report.rejected.length > 0) {
    lines.push(`Rejected ${plural(report.rejected.length, 'line')} (left out):`)
    for (const r of report.rejected.slice(0, 20)) lines.push(`  line ${r.line}: ${r.message}`)
    if (report.rejected.length > 20) lines.push(`  … and ${report.rejected.length - 20} more (--json lists them all)`)
  }
  if (report.dry_run) lines.push('Dry run: nothing was changed.')
  return lines.join('\n')
}

function lineList(notes: LineNote[]): string {
  const lines = [...new Set(notes.map((n) => n.line))]
  const shown = lines.slice(0, 10).join(', ')
  return `line${lines.length === 1 ? '' : 's'} ${shown}${lines.length > 10 ? ` and ${lines.length - 10} more` : ''}`
}
