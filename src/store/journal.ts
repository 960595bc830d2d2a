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
import {describeIssue, type Kind} from './format.js'
import {fsError} from './fs-errors.js'
import {linkedDataFileFix, linkedDataFileProblem} from './links.js'
import {JsonObject} from './records.js'
import {MemError} from '../errors.js'

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

/** Checks and parses a journal's bytes; throws `corrupt_file` for any whole line that is not a valid change. */
export function parseJournal(
  path: string,
  bytes: Buffer,
  expect: {kind: Kind; agent?: string; segment: string},
): JournalText {
  const end = bytes.lastIndexOf(0x0a) + 1
  const lines =
    end === 0
      ? []
      : bytes
          .subarray(0, end - 1)
          .toString('utf8')
          .split('\n')
  const ops: JournalOp[] = []
  for (const [i, line] of lines.entries()) {
    let value: unknown
    try {
      value = JSON.parse(line)
    } catch {
      throw corruptFile(path, `line ${i + 1} is not valid JSON`)
    }
    if (i === 0) {
      const header = v.safeParse(Header, value)
      if (!header.success)
        throw corruptFile(path, `its first line is not a mem journal header (${describeIssue(header.issues[0])})`)
      const {format, version, agent, segment} = header.output
      if (format !== journalFormat(expect.kind))
        throw corruptFile(path, `it holds "${format}" where "${journalFormat(expect.kind)}" was expected`)
      if (version > JOURNAL_VERSION)
        throw new MemError(
          'unsupported_version',
          `${path} was written by a newer mem (journal version ${version}; this mem reads up to ${JOURNAL_VERSION}). Upgrade mem to use it; the file was left untouched.`,
        )
      if (expect.agent !== undefined && agent !== expect.agent)
        throw corruptFile(path, `it belongs to agent "${agent}" but lies in the folder of agent "${expect.agent}"`)
      if (segment !== expect.segment)
        throw corruptFile(path, `it holds changes to ${segment}, not to ${expect.segment} beside it`)
      continue
    }
    if (v.is(Add, value) || v.is(Mark, value)) ops.push(value)
    else throw corruptFile(path, `line ${i + 1} is neither an "add" nor a "mark"`)
  }
  return {ops, end, size: bytes.length}
}

/** The segment's records with its journal's changes applied, each record checked as the JSON file's are. */
export function applyJournal<T extends {id: string}>(
  path: string,
  records: T[],
  ops: JournalOp[],
  schema: v.GenericSchema<unknown, T>,
): T[] {
  if (ops.length === 0) return records
  const out = [...records]
  const at = new Map(out.map((r, i) => [r.id, i]))
  for (const [i, op] of ops.entries()) {
    const line = i + 2
    if ('add' in op) {
      const parsed = v.safeParse(schema, op.add)
      if (!parsed.success)
        throw corruptFile(path, `the record added on line ${line} does not decode (${describeIssue(parsed.issues[0])})`)
      if (at.has(parsed.output.id)) continue
      at.set(parsed.output.id, out.length)
      out.push(parsed.output)
      continue
    }
    const index = at.get(op.mark)
    // A mark of a record the file no longer holds (edited out by hand) has nothing left to mark.
    if (index === undefined) continue
    const parsed = v.safeParse(schema, {...out[index], ...op.set, id: op.mark})
    if (!parsed.success)
      throw corruptFile(path, `the change on line ${line} does not decode (${describeIssue(parsed.issues[0])})`)
    out[index] = parsed.output
  }
  return out
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
