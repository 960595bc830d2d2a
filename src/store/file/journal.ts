import {
  closeSync,
  constants,
  fstatSync,
  ftruncateSync,
  fsyncSync,
  lstatSync,
  openSync,
  readFileSync,
  writeSync,
} from 'node:fs'
import {basename, dirname} from 'node:path'

import * as v from 'valibot'

import {
  ChangedMeanwhile,
  corruptFile,
  FILE_MODE,
  flushAfterCommit,
  identityText,
  removeQuietly,
} from './durable-file.js'
import {describeIssue} from '../describe-issue.js'
import {type Kind} from './format.js'
import {fsError} from './fs-errors.js'
import {linkedDataFileFix, linkedDataFileProblem} from './links.js'
import {JsonObject} from '../records.js'
import {MemError} from '../../errors.js'

/**
 * The changes made to one segment since its JSON file was last written, one JSON object a line
 * (docs/adr/0005-segment-journals.md): `000101.jsonl` beside `000101.json`. Appending a line
 * and flushing it is the whole cost of an add, however large the segment.
 *
 *     {"format":"mem.facts.changes","version":1,"agent":"alice","segment":"000101.json"}
 *     {"add":{"id":"01J…","content":"…","tags":[],"created_at":"…"}}
 *     {"mark":"01J…","set":{"deleted_at":"…"}}
 *
 * A line counts once it ends with its newline: JSON never holds a raw newline, so bytes after
 * the last one are a write that was never acknowledged (a crash in the middle of it) and are
 * ignored by readers and cut off by the next writer. Replaying is idempotent (an added id that
 * is already there is skipped, a mark sets the same fields again), so a journal left behind by a
 * writer that died after folding it into the JSON file changes nothing.
 */
export const JOURNAL_NAME = /^\d{6}\.jsonl$/

/** A journal is folded into its segment once it holds this much, so the JSON file stays close to the whole truth. */
export const JOURNAL_MAX_BYTES = 64 * 1024

export const JOURNAL_VERSION = 1

export function journalPath(segmentPath: string): string {
  return `${segmentPath}l`
}

export function journalFormat(kind: Kind): string {
  return `${kind}.changes`
}

const Header = v.object({
  format: v.string(),
  version: v.pipe(v.number(), v.integer(), v.minValue(1)),
  agent: v.string(),
  segment: v.string(),
})

const Add = v.strictObject({add: v.unknown()})
const Mark = v.strictObject({mark: v.string(), set: JsonObject})

export type JournalOp = {add: unknown} | {mark: string; set: Record<string, unknown>}

interface Known {
  identity: string
  /** Bytes up to the end of the last whole line. */
  end: number
}

/** What this process last read or wrote of each journal: a writer appends only to a journal it has seen as it is. */
const known = new Map<string, Known>()

export function forgetJournal(path: string): void {
  known.delete(path)
}

export function knownJournal(path: string): Known | undefined {
  return known.get(path)
}

/** Refused like a linked data file: a link would let a write land wherever it points. */
function linkedJournal(path: string): MemError {
  return new MemError(
    'corrupt_file',
    `${path} cannot be used: ${linkedDataFileProblem()}. It was left untouched. To go on, ${linkedDataFileFix(path)}; "mem doctor" lists every such link.`,
  )
}

/** Opens a journal for reading before its segment is read (see SegmentedFiles.read); undefined when there is none. */
export function openJournal(path: string): number | undefined {
  try {
    return openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') {
      known.delete(path)
      return undefined
    }
    if (code === 'ELOOP' || code === 'EMLINK') throw linkedJournal(path)
    throw fsError(error, 'read', path)
  }
}

export interface JournalText {
  ops: JournalOp[]
  /** Bytes of whole lines; anything after is an unacknowledged write. */
  end: number
  size: number
}

/** Reads an opened journal and remembers the identity of the very bytes read. */
export function readJournal(
  fd: number,
  path: string,
  expect: {kind: Kind; agent?: string; segment: string},
): JournalText {
  const st = fstatSync(fd, {bigint: true})
  if (!st.isFile()) throw corruptFile(path, 'it is not a regular file')
  const bytes = readFileSync(fd)
  const parsed = parseJournal(path, bytes, expect)
  known.set(path, {identity: identityText(st), end: parsed.end})
  return parsed
}

/**
 * A journal line that cannot be applied: every operation on the agent fails, naming the file and
 * the line. `mem doctor --fix` keeps the lines that can be applied and sets the others aside
 * (src/doctor/journal-repair.ts), so the hint names that repair.
 */
export function damagedJournal(path: string, problem: string): MemError {
  return new MemError(
    'corrupt_file',
    `${path} cannot be used: ${problem}. It was left untouched. Run "mem doctor --fix" to keep every line that can be applied and set the others aside in a file beside it (nothing is deleted), or "mem doctor" to see which.`,
  )
}

/** A journal's whole lines (each without its newline), and where the last one ends: bytes after it are a torn write. */
export function journalLines(bytes: Buffer): {lines: Buffer[]; end: number} {
  const end = bytes.lastIndexOf(0x0a) + 1
  const lines: Buffer[] = []
  for (let start = 0; start < end;) {
    const stop = bytes.indexOf(0x0a, start)
    lines.push(bytes.subarray(start, stop))
    start = stop + 1
  }
  return {lines, end}
}

/** A line's JSON value, or undefined when it is not JSON. */
export function lineValue(line: Buffer): {value: unknown} | undefined {
  try {
    return {value: JSON.parse(line.toString('utf8'))}
  } catch {
    return undefined
  }
}

/** True for a first line shaped like a journal header, whatever it says. */
export function isHeader(value: unknown): boolean {
  return v.is(Header, value)
}

/**
 * Checks a journal's first line against the segment it lies beside. A line that is no header at
 * all is damage (`mem doctor --fix` writes a new one); a header of another kind, agent or segment
 * is a journal that belongs elsewhere, and one of a newer version is for a newer mem.
 */
export function checkHeader(path: string, value: unknown, expect: {kind: Kind; agent?: string; segment: string}): void {
  const header = v.safeParse(Header, value)
  if (!header.success)
    throw damagedJournal(path, `its first line is not a mem journal header (${describeIssue(header.issues[0])})`)
  const {format, version, agent, segment} = header.output
  if (format !== journalFormat(expect.kind))
    throw foreignJournal(path, `it holds "${format}" where "${journalFormat(expect.kind)}" was expected`)
  if (version > JOURNAL_VERSION)
    throw new MemError(
      'unsupported_version',
      `${path} was written by a newer mem (journal version ${version}; this mem reads up to ${JOURNAL_VERSION}). Upgrade mem to use it; the file was left untouched.`,
    )
  if (expect.agent !== undefined && agent !== expect.agent)
    throw foreignJournal(path, `it belongs to agent "${agent}" but lies in the folder of agent "${expect.agent}"`)
  if (segment !== expect.segment)
    throw foreignJournal(path, `it holds changes to ${segment}, not to ${expect.segment} beside it`)
}

/** A journal whose header says it belongs elsewhere: no line of it is this segment's, so no repair keeps any. */
function foreignJournal(path: string, problem: string): MemError {
  return new MemError(
    'corrupt_file',
    `${path} cannot be used: ${problem}. It was left untouched. Move it out of the folder to give up its changes, or put it back where it belongs; "mem doctor" lists every such file.`,
  )
}

/** A line's change, or undefined when it is neither an add nor a mark. */
export function journalOp(value: unknown): JournalOp | undefined {
  return v.is(Add, value) || v.is(Mark, value) ? value : undefined
}

/** Checks and parses a journal's bytes; throws `corrupt_file` for any whole line that is not a valid change. */
export function parseJournal(
  path: string,
  bytes: Buffer,
  expect: {kind: Kind; agent?: string; segment: string},
): JournalText {
  const {lines, end} = journalLines(bytes)
  const ops: JournalOp[] = []
  for (const [i, line] of lines.entries()) {
    const parsed = lineValue(line)
    if (parsed === undefined) throw damagedJournal(path, `line ${i + 1} is not valid JSON`)
    if (i === 0) {
      checkHeader(path, parsed.value, expect)
      continue
    }
    const op = journalOp(parsed.value)
    if (op === undefined) throw damagedJournal(path, `line ${i + 1} is neither an "add" nor a "mark"`)
    ops.push(op)
  }
  return {ops, end, size: bytes.length}
}

/**
 * A segment's records with changes applied one at a time, each record checked as the JSON file's
 * are. Replay is idempotent: an added id already held is skipped, and a mark of an id not held
 * (a record edited out by hand) has nothing to mark.
 */
export class Replay<T extends {id: string}> {
  readonly records: T[]
  private readonly at: Map<string, number>

  constructor(
    records: T[],
    private readonly schema: v.GenericSchema<unknown, T>,
  ) {
    this.records = [...records]
    this.at = new Map(this.records.map((r, i) => [r.id, i]))
  }

  holds(id: string): boolean {
    return this.at.has(id)
  }

  /** Applies the change on `line`; returns why it cannot be applied, or undefined once it is. */
  apply(op: JournalOp, line: number): string | undefined {
    if ('add' in op) {
      const parsed = v.safeParse(this.schema, op.add)
      if (!parsed.success)
        return `the record added on line ${line} does not decode (${describeIssue(parsed.issues[0])})`
      if (this.at.has(parsed.output.id)) return undefined
      this.at.set(parsed.output.id, this.records.length)
      this.records.push(parsed.output)
      return undefined
    }
    const index = this.at.get(op.mark)
    if (index === undefined) return undefined
    const parsed = v.safeParse(this.schema, {...this.records[index], ...op.set, id: op.mark})
    if (!parsed.success) return `the change on line ${line} does not decode (${describeIssue(parsed.issues[0])})`
    this.records[index] = parsed.output
    return undefined
  }
}

/** The segment's records with its journal's changes applied, each record checked as the JSON file's are. */
export function applyJournal<T extends {id: string}>(
  path: string,
  records: T[],
  ops: JournalOp[],
  schema: v.GenericSchema<unknown, T>,
): T[] {
  if (ops.length === 0) return records
  const replay = new Replay(records, schema)
  for (const [i, op] of ops.entries()) {
    const problem = replay.apply(op, i + 2)
    if (problem !== undefined) throw damagedJournal(path, problem)
  }
  return replay.records
}

/**
 * Appends changes to a journal and flushes them before returning: one write and one fsync (and,
 * for a new journal, a flush of its folder). The caller holds the agent's lock. A journal that
 * is not as this process last saw it was written behind the lock's back: ChangedMeanwhile, and
 * the store reads again. A tail left by a writer that died mid-line is cut off first. A write
 * that fails (a full disk) is cut back off, so no part of it stays for a reader to find.
 */
export function appendJournal(
  path: string,
  header: {kind: Kind; agent: string; segment: string},
  ops: JournalOp[],
): Known & {bytes: number} {
  const before = known.get(path)
  let fd: number
  let created = false
  try {
    fd = openSync(path, constants.O_WRONLY | constants.O_APPEND | (constants.O_NOFOLLOW ?? 0))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP' || code === 'EMLINK') throw linkedJournal(path)
    if (code !== 'ENOENT') throw fsError(error, 'write', path)
    if (before) throw new ChangedMeanwhile(path)
    try {
      fd = openSync(
        path,
        constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0),
        FILE_MODE,
      )
      created = true
    } catch (error) {
      const again = (error as NodeJS.ErrnoException).code
      if (again === 'EEXIST') throw new ChangedMeanwhile(path)
      if (again === 'ELOOP' || again === 'EMLINK') throw linkedJournal(path)
      throw fsError(error, 'write', path)
    }
  }
  let result: Known & {bytes: number}
  try {
    const st = fstatSync(fd, {bigint: true})
    if (!st.isFile()) throw corruptFile(path, 'it is not a regular file')
    if (!created && before?.identity !== identityText(st)) throw new ChangedMeanwhile(path)
    const end = created ? 0 : before!.end
    const head =
      end === 0
        ? `${JSON.stringify({format: journalFormat(header.kind), version: JOURNAL_VERSION, agent: header.agent, segment: header.segment})}\n`
        : ''
    const text = Buffer.from(head + ops.map((op) => `${JSON.stringify(op)}\n`).join(''), 'utf8')
    try {
      // A torn tail (a writer that died mid-line): readers ignore it; the new line must not be glued to it.
      if (st.size > BigInt(end)) ftruncateSync(fd, end)
      let offset = 0
      while (offset < text.length) offset += writeSync(fd, text, offset)
      fsyncSync(fd)
    } catch (error) {
      // Cut back to the last acknowledged line: readers never meet part of a failed write.
      try {
        ftruncateSync(fd, end)
      } catch {
        // A torn line without its newline is ignored by readers and cut off by the next writer.
      }
      known.delete(path)
      if (created) removeQuietlyIgnoring(path)
      throw fsError(error, 'write', path)
    }
    const after = fstatSync(fd, {bigint: true})
    // A journal folded and removed behind the lock's back (mem never does) would take this line
    // with it: the change is made again on the file the path names now, never acknowledged lost.
    const named = lstatSync(path, {bigint: true, throwIfNoEntry: false})
    if (named?.ino !== after.ino || named.dev !== after.dev) {
      known.delete(path)
      throw new ChangedMeanwhile(path)
    }
    result = {identity: identityText(after), end: end + text.length, bytes: text.length - head.length}
    known.set(path, {identity: result.identity, end: result.end})
  } finally {
    closeSync(fd)
  }
  // The new journal's name must survive a power cut as well as its bytes; see flushAfterCommit.
  if (created) flushAfterCommit(dirname(path))
  return result
}

function removeQuietlyIgnoring(path: string): void {
  try {
    removeQuietly(path)
  } catch {
    // An empty journal is read as no changes.
  }
}

export function segmentOfJournal(name: string): string {
  return basename(name, '.jsonl') + '.json'
}
