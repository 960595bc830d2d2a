import {closeSync, constants, openSync, readdirSync, readFileSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'

import type * as v from 'valibot'

import {MemError} from '../errors.js'
import {createFileDurably, removeQuietly, writeFileDurably} from '../store/file/durable-file.js'
import type {Kind} from '../store/file/format.js'
import {
  checkHeader,
  isHeader,
  journalFormat,
  journalLines,
  journalOp,
  JOURNAL_VERSION,
  lineValue,
  Replay,
} from '../store/file/journal.js'
import {revisionPath} from '../store/file/revision.js'

/**
 * What `mem doctor --fix` does with a journal some of whose lines cannot be applied
 * (docs/reliability.md, "A damaged journal"): every line that can be applied is kept, in its
 * order and byte for byte; the others are set aside, never deleted, in a new file beside it that
 * mem never reads. A line is set aside when it is not JSON, is neither an add nor a mark, adds a
 * record that does not decode, or makes a change that does not decode; and so is a line that
 * depends on one set aside: a mark of a fact that neither the JSON file nor a line kept before it
 * adds, and a mark saying a fact was replaced by one no segment of the agent holds (keeping it
 * would hide the fact with nothing in its place).
 */
export interface JournalPlan {
  path: string
  /** The journal's bytes as planned from: the repair acts on these only. */
  bytes: Buffer
  /** Lines kept, the header first: its own, or a new one when the first line was none. */
  keep: {line: number; text: Buffer; replacedBy?: {id: string; by: string}}[]
  newHeader: boolean
  /** `refused`: the store refuses the journal for this line (the others depend on a line set aside). */
  aside: {line: number; text: Buffer; why: string; refused: boolean}[]
  /** Bytes after the last newline: a write that never finished, which readers leave out. */
  torn: Buffer
  /** Ids of the records the kept lines add. */
  added: string[]
}

export interface JournalTarget {
  kind: Kind
  agent: string
  segment: string
}

/** Sorts a journal's lines into kept and set aside; throws for a journal that belongs elsewhere (see checkHeader). */
export function planJournal<T extends {id: string}>(
  path: string,
  bytes: Buffer,
  target: JournalTarget,
  records: T[],
  schema: v.GenericSchema<unknown, T>,
): JournalPlan {
  const {lines, end} = journalLines(bytes)
  const plan: JournalPlan = {path, bytes, keep: [], newHeader: false, aside: [], torn: bytes.subarray(end), added: []}
  if (lines.length === 0) return plan
  const first = lineValue(lines[0]!)
  if (first !== undefined && isHeader(first.value)) {
    checkHeader(path, first.value, target)
    plan.keep.push({line: 1, text: lines[0]!})
  } else {
    plan.newHeader = true
    plan.keep.push({line: 0, text: Buffer.from(JSON.stringify(header(target)))})
  }
  const replay = new Replay(records, schema)
  for (let i = plan.newHeader ? 0 : 1; i < lines.length; i++) {
    const text = lines[i]!
    const problem = lineProblem(text, i + 1, replay, target.segment, plan)
    if (problem !== undefined) plan.aside.push({line: i + 1, text, ...problem})
  }
  return plan
}

function header(target: JournalTarget): Record<string, unknown> {
  return {format: journalFormat(target.kind), version: JOURNAL_VERSION, agent: target.agent, segment: target.segment}
}

/** Applies one line, keeping it, or says why it is set aside. */
function lineProblem<T extends {id: string}>(
  text: Buffer,
  line: number,
  replay: Replay<T>,
  segment: string,
  plan: JournalPlan,
): {why: string; refused: boolean} | undefined {
  const parsed = lineValue(text)
  if (parsed === undefined) return {why: `line ${line} is not valid JSON`, refused: true}
  const op = journalOp(parsed.value)
  if (op === undefined)
    return {
      why:
        line === 1
          ? 'its first line is neither a journal header nor a change'
          : `line ${line} is neither an "add" nor a "mark"`,
      refused: true,
    }
  if ('mark' in op && !replay.holds(op.mark))
    return {
      why: `line ${line} marks fact ${op.mark}, which neither ${segment} nor a line kept before it adds`,
      refused: false,
    }
  const problem = replay.apply(op, line)
  if (problem !== undefined) return {why: problem, refused: true}
  if ('add' in op) plan.added.push((op.add as {id: string}).id)
  const by = 'mark' in op ? op.set.superseded_by : undefined
  plan.keep.push({line, text, ...(typeof by === 'string' ? {replacedBy: {id: (op as {mark: string}).mark, by}} : {})})
  return undefined
}

/**
 * Sets aside the marks saying a fact was replaced by one that `stored` (every fact the agent's
 * segments hold once the lines set aside are gone) does not hold: the replacement was added on a
 * line that is set aside, or is lost, and keeping the mark would hide the fact with nothing in its
 * place. With it set aside the fact is live again, as after a crash between the two writes.
 */
export function setAsideDanglingReplacements(plan: JournalPlan, stored: ReadonlySet<string>): void {
  const dangling = plan.keep.filter((k) => k.replacedBy && !stored.has(k.replacedBy.by))
  if (dangling.length === 0) return
  plan.keep = plan.keep.filter((k) => !dangling.includes(k))
  for (const k of dangling)
    plan.aside.push({
      line: k.line,
      text: k.text,
      why: `line ${k.line} says fact ${k.replacedBy!.id} was replaced by ${k.replacedBy!.by}, which no segment of this agent holds, so it hides the fact with nothing in its place`,
      refused: false,
    })
  plan.aside.sort((a, b) => a.line - b.line)
}

/** Changes kept: every kept line but the header. */
export function keptChanges(plan: JournalPlan): number {
  return plan.keep.length - 1
}

const ASIDE_MARK = '.set-aside-'

/** `000001.jsonl.set-aside-<time>`: lines `mem doctor --fix` took out of a journal. No mem reads them. */
export function isSetAsideFile(name: string): boolean {
  return /^\d{6}\.jsonl\.set-aside-/.test(name)
}

/** What the lines set aside would be written as: each on its own line, and an unfinished last line after them. */
function asideBytes(plan: JournalPlan): Buffer {
  const parts = plan.aside.flatMap((a) => [a.text, NEWLINE])
  if (plan.torn.length > 0) parts.push(plan.torn, NEWLINE)
  return Buffer.concat(parts)
}

const NEWLINE = Buffer.from('\n')

/**
 * Makes the repair, under the agent's lock: first the lines set aside go to a new file beside the
 * journal, made durably under a name no file has (a file another repair left is never written
 * over); only then is the journal replaced, by an atomic rename, with the lines kept. A crash
 * between the two leaves the journal as it was and the file: the next repair finds a file that
 * holds exactly these lines and uses it rather than make a second. Returns the file's path (none
 * when nothing was set aside: the only damage was a missing header).
 */
export function repairJournal(plan: JournalPlan, now = new Date()): string | undefined {
  if (!readNoFollow(plan.path).equals(plan.bytes))
    throw new MemError(
      'io_error',
      `${plan.path} changed after it was checked, so it was left as it is; run "mem doctor --fix" again`,
    )
  const bytes = asideBytes(plan)
  // Nothing to set aside when the only damage was a missing header.
  const found = bytes.length === 0 ? undefined : sameAside(plan.path, bytes)
  const file = bytes.length === 0 ? undefined : (found ?? createAside(plan.path, bytes, now))
  try {
    writeFileDurably(plan.path, Buffer.concat(plan.keep.flatMap((k) => [k.text, NEWLINE])), {
      durable: true,
      backup: false,
    })
  } catch (error) {
    // The journal still holds every line: a file made by this attempt would only be one more copy per failed try.
    if (file !== undefined && found === undefined) removeQuietly(file)
    throw error
  }
  // Only a cache key: without it every running mem reads the segments again.
  removeQuietly(revisionPath(dirname(dirname(plan.path))))
  return file
}

function readNoFollow(path: string): Buffer {
  const fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))
  try {
    return readFileSync(fd)
  } finally {
    closeSync(fd)
  }
}

/** A file an earlier repair of this journal made with exactly these bytes (it died before replacing the journal). */
function sameAside(journal: string, bytes: Buffer): string | undefined {
  const prefix = `${basename(journal)}${ASIDE_MARK}`
  for (const name of readdirSync(dirname(journal))
    .filter((n) => n.startsWith(prefix))
    .sort()) {
    const path = join(dirname(journal), name)
    try {
      if (readNoFollow(path).equals(bytes)) return path
    } catch {
      // Not a file mem can read as it is: never one to rely on.
    }
  }
  return undefined
}

function createAside(journal: string, bytes: Buffer, now: Date): string {
  const stamp = now.toISOString().replace(/[:.]/g, '-')
  for (let n = 1; ; n++) {
    const path = `${journal}${ASIDE_MARK}${stamp}${n === 1 ? '' : `-${n}`}`
    try {
      createFileDurably(path, bytes)
      return path
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
}
