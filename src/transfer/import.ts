import * as v from 'valibot'

import {MemError} from '../errors.js'
import {AgentId} from '../ops/fields.js'
import {defineOperation, runOperation, type OperationContext} from '../ops/operation.js'
import {
  PartialImport,
  type CheckpointRecord,
  type FactRecord,
  type ImportBatch,
  type ImportResult,
} from '../store/store.js'
import {ImportPlanner} from './import-plan.js'
import {readEntries, type Planned, type ReadOptions} from './import-read.js'
import {openImportSource, textSource, type ImportSource} from './import-source.js'
import type {OnProgress, TransferContext} from './progress.js'
import {plural} from '../plural.js'

export const ImportInput = v.strictObject({
  /** The file to read, or "-" for stdin. */
  file: v.optional(v.string()),
  /** The lines themselves, for a caller that has them in memory (instead of `file`). */
  text: v.optional(v.string()),
  /** Put every record into this agent instead of the one each line names. */
  agent_id: v.optional(AgentId),
  dry_run: v.optional(v.boolean(), false),
  /** Import the valid lines even when some are rejected (they are still reported). */
  skip_invalid: v.optional(v.boolean(), false),
  /** Read bytes that are not UTF-8 as U+FFFD (�) instead of rejecting their lines. */
  replace_invalid_utf8: v.optional(v.boolean(), false),
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
  /** Lines whose bytes that are not UTF-8 were read as U+FFFD (--replace-invalid-utf8). */
  replaced_invalid_utf8: v.array(LineNote),
})
export type ImportReport = v.InferOutput<typeof ImportReport>

const UTF8_HINT =
  'Save the file as UTF-8 (for example: iconv -f WINDOWS-1252 -t UTF-8 FILE > FILE.utf8), or import it with --replace-invalid-utf8 to store U+FFFD (\ufffd) in place of each bad byte.'

/** Some lines failed validation, so nothing was changed. Carries the full report. */
export class ImportRejected extends MemError {
  constructor(
    readonly report: ImportReport,
    why: {utf8: number; stoppedAt?: number} = {utf8: 0},
  ) {
    const shown = report.rejected.slice(0, 20).map((r) => `  line ${r.line}: ${r.message}`)
    const more =
      report.rejected.length > shown.length
        ? [`  … and ${report.rejected.length - shown.length} more (--json lists them all)`]
        : []
    const stopped =
      why.stoppedAt === undefined
        ? []
        : [`mem stopped reading at line ${why.stoppedAt}: a line that long is not one mem wrote or reads.`]
    const utf8 = why.utf8 === 0 ? [] : [`${plural(why.utf8, 'line')} not valid UTF-8. ${UTF8_HINT}`]
    super(
      'invalid_input',
      [
        `${plural(report.rejected.length, 'line')} rejected; nothing was imported. Fix the lines, or import the rest with --skip-invalid:`,
        ...shown,
        ...more,
        ...stopped,
        ...utf8,
      ].join('\n'),
      // Under --json every bad line is listed, beside the usual code and message.
      {rejected: report.rejected, skipped: report.skipped.length},
    )
  }
}

/**
 * Records to write in one locked write at most: an import stopped part way keeps the writes it
 * finished. Small enough that a batch's records die young (10,000 records outlived the garbage
 * collector's young generation and cost a 200,000-fact import some 40 MiB of peak memory), large
 * enough that each write fills a segment.
 */
const BATCH_RECORDS = 1_000
const BATCH_BYTES = 16 * 1024 * 1024

/**
 * The line of each record the first read decided to write, by its place among the file's
 * records: a number each, where a map of 200,000 of them took megabytes and left as much again
 * behind for the collector each time it grew.
 */
class Writes {
  /** Line + 1 of record n at n; 0: not to be written. */
  private lines = new Uint32Array(1024)
  count = 0

  set(n: number, line: number): void {
    if (n >= this.lines.length) {
      const grown = new Uint32Array(Math.max(n + 1, this.lines.length * 2))
      grown.set(this.lines)
      this.lines = grown
    }
    if (this.lines[n] === 0) this.count++
    this.lines[n] = line + 1
  }

  get(n: number): number | undefined {
    const at = this.lines[n]
    return at === undefined || at === 0 ? undefined : at - 1
  }
}

/** What the first read decided: the records to write (by their place among the file's records) and the marks to apply. */
interface Checked {
  report: ImportReport
  writes: Writes
  marks: Map<string, {line: number; id: string; patch: Partial<FactRecord>; message: string}[]>
  perAgent: Map<string, number>
}

/**
 * `mem import`: reads the file twice, one line at a time. The first read checks every line
 * and decides, for each record, whether it is new, already present, or wrong; only then (and
 * only if nothing is wrong, unless asked) does the second read write, in batches of locked
 * writes per agent. Memory stays the same whatever the size of the file.
 */
async function importAll(ctx: TransferContext, input: v.InferOutput<typeof ImportInput>): Promise<ImportReport> {
  if ((input.file === undefined) === (input.text === undefined))
    throw new MemError('invalid_input', 'give the file to import, or its text')
  const source =
    input.text === undefined ? await openImportSource(input.file ?? '-', process.stdin) : textSource(input.text)
  try {
    const options = {
      agent_id: input.agent_id,
      replace_invalid_utf8: input.replace_invalid_utf8,
      importedAt: Date.now(),
    }
    const checked = await checkAll(ctx, input, source, options)
    if (input.dry_run) return checked.report
    await writeAll(ctx, source, options, checked)
    return checked.report
  } finally {
    await source.close()
  }
}

/** The first read: every line checked against the store and earlier lines; nothing written. */
async function checkAll(
  ctx: TransferContext,
  input: v.InferOutput<typeof ImportInput>,
  source: ImportSource,
  options: ReadOptions,
): Promise<Checked> {
  const {onProgress} = ctx
  const report: ImportReport = {
    dry_run: input.dry_run,
    formats: [],
    added: {facts: 0, checkpoints: 0},
    agents: [],
    updated: [],
    skipped: [],
    rejected: [],
    replaced_invalid_utf8: [],
  }
  const checked: Checked = {report, writes: new Writes(), marks: new Map(), perAgent: new Map()}
  const formats = new Set<string>()
  const planner = new ImportPlanner(ctx)
  const why: {utf8: number; stoppedAt?: number} = {utf8: 0}
  let ordinal = 0
  onProgress?.('Checking', 0, source.size)
  for await (const entry of readEntries(ctx, source, options, (done) => onProgress?.('Checking', done, source.size))) {
    if ('problem' in entry) {
      report.rejected.push({line: entry.line, message: entry.problem})
      if (entry.cause === 'utf8') why.utf8++
      if (entry.cause === 'too long' && !input.skip_invalid) {
        why.stoppedAt = entry.line
        break
      }
      continue
    }
    formats.add(entry.format)
    if (entry.replaced && report.replaced_invalid_utf8.at(-1)?.line !== entry.line)
      report.replaced_invalid_utf8.push({line: entry.line, message: 'bytes that are not UTF-8 were read as U+FFFD'})
    for (const p of entry.planned) {
      const n = ordinal++
      const decision = await planner.decide(p)
      if (decision.kind === 'write') {
        checked.writes.set(n, p.line)
        checked.perAgent.set(p.agent, (checked.perAgent.get(p.agent) ?? 0) + 1)
        countAdded(report, p.agent, p.kind, 1)
      } else if (decision.kind === 'mark') {
        const marks = checked.marks.get(p.agent) ?? []
        marks.push({line: p.line, id: p.record.id, patch: decision.patch, message: decision.message})
        checked.marks.set(p.agent, marks)
        countAdded(report, p.agent, 'fact', 0)
        report.updated.push({line: p.line, message: decision.message})
      } else
        (decision.kind === 'skip' ? report.skipped : report.rejected).push({line: p.line, message: decision.message})
    }
  }
  onProgress?.('Checking', source.size, source.size)
  report.formats = [...formats].sort()
  report.rejected.sort((a, b) => a.line - b.line)
  if (report.rejected.length > 0 && !input.skip_invalid) throw new ImportRejected(report, why)
  return checked
}

/** Adds to the report's counts, the agent's row included (rows in the order agents first appear). */
function countAdded(report: ImportReport, agent: string, kind: 'fact' | 'checkpoint', n: number): void {
  let row = report.agents.find((a) => a.agent_id === agent)
  if (!row) report.agents.push((row = {agent_id: agent, facts: 0, checkpoints: 0}))
  if (kind === 'fact') {
    row.facts += n
    report.added.facts += n
  } else {
    row.checkpoints += n
    report.added.checkpoints += n
  }
}

interface Pending {
  facts: Planned[]
  checkpoints: Planned[]
}

/**
 * The second read: the records the first decided to write, in batches, each agent's marks
 * with its last batch (new facts are written before stored ones are marked). The report's
 * counts are redone from what the store says it wrote.
 */
async function writeAll(
  ctx: TransferContext,
  source: ImportSource,
  options: ReadOptions,
  checked: Checked,
): Promise<void> {
  const {onProgress} = ctx
  const {report, writes} = checked
  const changed = await source.changed()
  if (changed) throw fileChanged(changed)
  const planned = {facts: report.added.facts, checkpoints: report.added.checkpoints}
  report.added = {facts: 0, checkpoints: 0}
  report.agents = []
  report.updated = []
  const total = writes.count + [...checked.marks.values()].reduce((n, m) => n + m.length, 0)
  const left = new Map(checked.perAgent)
  let done = 0
  const pending = new Map<string, Pending>()
  let pendingRecords = 0
  let pendingBytes = 0
  const flush = async (): Promise<void> => {
    for (const [agent, batch] of pending) {
      const remaining = (left.get(agent) ?? 0) - batch.facts.length - batch.checkpoints.length
      left.set(agent, remaining)
      const marks = remaining === 0 ? (checked.marks.get(agent) ?? []) : []
      if (remaining === 0) checked.marks.delete(agent)
      await writeBatch(ctx, agent, batch, marks, remaining > 0, report, planned)
      done += batch.facts.length + batch.checkpoints.length + marks.length
      onProgress?.('Writing', done, total)
    }
    pending.clear()
    pendingRecords = 0
    pendingBytes = 0
  }
  onProgress?.('Writing', 0, total)
  let ordinal = 0
  // A file with nothing new (one imported before) is not read a second time.
  const lines = writes.count > 0 ? readEntries(ctx, source, options) : []
  for await (const entry of lines) {
    if ('problem' in entry) continue
    for (const p of entry.planned) {
      const line = writes.get(ordinal++)
      if (line === undefined) continue
      if (line !== p.line) throw fileChanged('the file changed while it was read')
      const batch = pending.get(p.agent) ?? {facts: [], checkpoints: []}
      pending.set(p.agent, batch)
      ;(p.kind === 'fact' ? batch.facts : batch.checkpoints).push(p)
      pendingRecords++
      pendingBytes += p.bytes
      if (pendingRecords >= BATCH_RECORDS || pendingBytes >= BATCH_BYTES) await flush()
    }
  }
  await flush()
  // Agents the file only marks, and any whose records another process added meanwhile.
  for (const [agent, marks] of checked.marks) {
    await writeBatch(ctx, agent, {facts: [], checkpoints: []}, marks, false, report, planned)
    done += marks.length
    onProgress?.('Writing', done, total)
  }
  report.skipped.sort((a, b) => a.line - b.line)
  report.updated.sort((a, b) => a.line - b.line)
}

function fileChanged(why: string): MemError {
  return new MemError(
    'io_error',
    `${why}, so what was checked is no longer what would be written; nothing more was imported. Import it again once nothing writes to it (records already imported are skipped).`,
  )
}

/** One locked write; a failure says what the import had stored by then, and that a re-run is safe. */
async function writeBatch(
  ctx: OperationContext,
  agent: string,
  batch: Pending,
  marks: {line: number; id: string; patch: Partial<FactRecord>; message: string}[],
  more: boolean,
  report: ImportReport,
  planned: {facts: number; checkpoints: number},
): Promise<void> {
  const lineOf = new Map([...batch.facts, ...batch.checkpoints].map((p) => [p.record.id, p.line]))
  const records: ImportBatch = {
    facts: sortById(batch.facts.map((p) => p.record as FactRecord)),
    checkpoints: sortByTime(batch.checkpoints.map((p) => p.record as CheckpointRecord)),
    marks: marks.map((m) => ({id: m.id, patch: m.patch})),
  }
  let result: ImportResult
  try {
    result = await ctx.store.importRecords(agent, records, {more})
  } catch (error) {
    if (!(error instanceof MemError) || error.code !== 'io_error') throw error
    // What the import stored in all: the writes before this one, and what this one saved if it
    // stopped part way (a segment committed, the next not).
    const partly = error instanceof PartialImport ? error.saved : {facts: 0, checkpoints: 0}
    const reason = error instanceof PartialImport ? error.reason : error.message
    const stored = [
      `${report.added.facts + partly.facts} of ${plural(planned.facts, 'fact')}`,
      ...(planned.checkpoints > 0
        ? [`${report.added.checkpoints + partly.checkpoints} of ${plural(planned.checkpoints, 'checkpoint')}`]
        : []),
    ]
    throw new MemError(
      'io_error',
      `The import stopped at agent "${agent}": ${reason}${/[.!?]$/.test(reason) ? '' : '.'} In all, ${stored.join(' and ')} were imported before it stopped. Running the import again is safe: it skips what is already stored.`,
    )
  }
  // Another process may have added the same ids, or changed the same facts, since the check.
  const addedIds = new Set([...result.facts, ...result.checkpoints])
  for (const [id, line] of lineOf)
    if (!addedIds.has(id)) report.skipped.push({line, message: `${id} was added meanwhile by another mem process`})
  const markedIds = new Set(result.marked)
  for (const m of marks) {
    if (markedIds.has(m.id)) report.updated.push({line: m.line, message: m.message})
    else report.skipped.push({line: m.line, message: `fact ${m.id} was changed meanwhile by another mem process`})
  }
  countAdded(report, agent, 'fact', result.facts.length)
  countAdded(report, agent, 'checkpoint', result.checkpoints.length)
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
    "Adds the facts and checkpoints of a mem export, a conversation transcript, an MCP memory server file, or ChatGPT's or Claude's conversations.json.",
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
  if (report.replaced_invalid_utf8.length > 0)
    lines.push(
      `Read bytes that are not UTF-8 as U+FFFD (\ufffd) on ${plural(report.replaced_invalid_utf8.length, 'line')}: ${lineList(report.replaced_invalid_utf8)}.`,
    )
  if (report.dry_run) lines.push('Dry run: nothing was changed.')
  return lines.join('\n')
}

function lineList(notes: LineNote[]): string {
  const lines = [...new Set(notes.map((n) => n.line))]
  const shown = lines.slice(0, 10).join(', ')
  return `line${lines.length === 1 ? '' : 's'} ${shown}${lines.length > 10 ? ` and ${lines.length - 10} more` : ''}`
}
