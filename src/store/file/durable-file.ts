import {randomBytes} from 'node:crypto'
import {
  closeSync,
  existsSync,
  fstatSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type BigIntStats,
} from 'node:fs'
import {basename, dirname, join, relative, sep} from 'node:path'

import type {SyncAdapter} from 'lowdb'

import {MemError} from '../../errors.js'
import {fsError} from './fs-errors.js'
import {describeJsonError} from '../json-position.js'

export const FILE_MODE = 0o600
export const DIR_MODE = 0o700

export function backupPath(path: string): string {
  return `${path}.bak`
}

export function isTempFile(name: string): boolean {
  return name.startsWith('.') && name.endsWith('.tmp')
}

/**
 * A lowdb adapter that writes the way a crash cannot hurt: a temporary file in the same
 * folder, fsync, keep the previous version as `<file>.bak` (a hard link, so no copy),
 * rename over the old file, fsync the folder. A missing file reads as "no data yet";
 * a file that does not parse is an error and is never written over by a reader.
 * Cross-process exclusion is the caller's job (store/lock.ts).
 */
export class DurableJsonFile implements SyncAdapter<unknown> {
  /** The file this adapter last wrote: its identity, taken from the descriptor it wrote, and its size. */
  written?: {identity: string; bytes: number}

  constructor(
    readonly path: string,
    private readonly options: {durable: boolean; backup: boolean} = {durable: true, backup: true},
  ) {}

  read(): unknown {
    const text = readWithIdentity(this.path)
    if (text === undefined) return null
    return parseJson(this.path, text)
  }

  /**
   * Replaces the file, but only if it is still the version this process last read or wrote
   * (or still absent): replacing anything else could drop a change this process never saw, or
   * write over a file damaged since. A file that no longer parses is reported as corrupt.
   * The caller holds the agent's lock; this is the second line of defence behind it.
   */
  write(data: unknown): void {
    if (!isCurrent(this.path)) {
      const text = readFileSync(this.path, 'utf8')
      parseJson(this.path, text)
      throw new ChangedMeanwhile(this.path)
    }
    // The identity of the bytes this process wrote, not of whatever the path names by now.
    const text = `${JSON.stringify(data)}\n`
    this.written = {identity: writeFileDurably(this.path, text, this.options), bytes: Buffer.byteLength(text)}
    seen.set(this.path, this.written.identity)
  }
}

/**
 * The file is no longer the version this process read: something replaced it without taking the
 * agent's lock (mem never does). The store reads the agent afresh and runs the change again.
 */
export class ChangedMeanwhile extends MemError {
  constructor(readonly path: string) {
    super(
      'io_error',
      `${path} was changed by another process while this one was writing, so this change was not saved. Try again.`,
    )
  }
}

/** The identity of each file as this process last read or wrote it (every replace makes a new inode). */
const seen = new Map<string, string | undefined>()

/** Forgets what this process knew of `path`: its next write checks it against a fresh read. */
export function forgetIdentity(path: string): void {
  seen.delete(path)
}

/** The identity of `path` as this process last read or wrote it. */
export function knownIdentity(path: string): string | undefined {
  return seen.get(path)
}

/** True when `path` is absent or exactly as this process last read or wrote it. */
export function isCurrent(path: string): boolean {
  const now = fileIdentity(path)
  return now === undefined || now === seen.get(path)
}

/**
 * Device, inode, size, modification time and status-change time: changes whenever a file is
 * replaced or written in place. The status-change time (ctime) is the one a hand edit cannot
 * keep: `touch -r` or a restore from a backup can put back the modification time, but setting
 * it moves ctime to now. Undefined when absent.
 */
export function fileIdentity(path: string): string | undefined {
  try {
    return identityText(statSync(path, {bigint: true}))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

export function identityText(st: BigIntStats): string {
  return `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`
}

/** Reads a file and remembers the identity of the very bytes read; undefined when it does not exist. */
function readWithIdentity(path: string): string | undefined {
  let fd: number
  try {
    fd = openSync(path, 'r')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      seen.delete(path)
      return undefined
    }
    throw error
  }
  try {
    seen.set(path, identityText(fstatSync(fd, {bigint: true})))
    return readFileSync(fd, 'utf8')
  } finally {
    closeSync(fd)
  }
}

function parseJson(path: string, text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    // V8's message may quote part of the text: only a position is kept, so no stored content reaches an error or a log.
    throw corruptFile(path, text.length === 0 ? 'it is empty' : describeJsonError(text, (error as Error).message))
  }
}

export function corruptFile(path: string, problem: string): MemError {
  return new MemError(
    'corrupt_file',
    `${path} cannot be used: ${problem}. It was left untouched. Run "mem doctor" to see what can be done: "mem doctor --fix" puts back the last good copy where one is kept.`,
  )
}

/**
 * A new private file beside `path`, under a name no other process picks (`.<name>.<pid>.<random>.tmp`),
 * opened for writing; failing, the error names `path`, the file the caller means to write.
 */
function openTemporary(path: string): {tmp: string; fd: number} {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  try {
    return {tmp, fd: openSync(tmp, 'wx', FILE_MODE)}
  } catch (error) {
    throw fsError(error, 'write', path)
  }
}

/**
 * Replaces `path` durably and returns the identity of the new file, taken from the descriptor
 * that wrote it once it is renamed into place (the rename itself changes the status-change
 * time), so the caller never mistakes a file another process put there for its own. Once the
 * rename is done the change is made: a failing folder flush after it is retried once and then
 * left, because reporting failure for a change every reader already sees would make a client
 * that retries store it twice.
 */
export function writeFileDurably(path: string, text: string | Buffer, options = {durable: true, backup: true}): string {
  const dir = dirname(path)
  const {tmp, fd} = openTemporary(path)
  let identity: string
  try {
    try {
      writeAll(fd, text)
      if (options.durable) fsyncSync(fd)
    } catch (error) {
      removeQuietly(tmp)
      throw fsError(error, 'write', path)
    }
    try {
      if (options.backup) keepBackup(path)
      renameSync(tmp, path)
    } catch (error) {
      removeQuietly(tmp)
      throw fsError(error, 'replace', path)
    }
    identity = identityText(fstatSync(fd, {bigint: true}))
  } finally {
    closeSync(fd)
  }
  if (options.durable) flushAfterCommit(dir)
  return identity
}

export function flushAfterCommit(dir: string): void {
  try {
    fsyncDir(dir)
  } catch {
    try {
      fsyncDir(dir)
    } catch {
      // See writeFileDurably: the new file is in place; only its durability across a power cut is in doubt.
    }
  }
}

/**
 * Creates a folder and any missing parents (mode 0700), and flushes each new one's entry in
 * its parent, so a power cut cannot lose a folder whose files were flushed.
 */
export function makeDirDurably(path: string): void {
  let first: string | undefined
  try {
    first = mkdirSync(path, {recursive: true, mode: DIR_MODE})
  } catch (error) {
    throw fsError(error, 'create the folder', path)
  }
  if (first === undefined) return
  const created = [first, ...relative(first, path).split(sep).filter(Boolean)]
  let current = ''
  for (const [i, part] of created.entries()) {
    current = i === 0 ? part : join(current, part)
    try {
      fsyncDir(dirname(current))
    } catch (error) {
      throw fsError(error, 'flush the folder', dirname(current))
    }
  }
}

function writeAll(fd: number, text: string | Buffer): void {
  const bytes = typeof text === 'string' ? Buffer.from(text, 'utf8') : text
  let offset = 0
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset)
}

function keepBackup(path: string): void {
  const bak = backupPath(path)
  for (let attempt = 0; ; attempt++) {
    removeQuietly(bak)
    try {
      linkSync(path, bak)
      return
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT') return
      // A .bak that reappeared between the unlink and the link (a process that ignores the lock): replace it once more.
      if (code !== 'EEXIST' || attempt > 0) throw fsError(error, 'keep the previous version of', `${path} as ${bak}`)
    }
  }
}

/**
 * Makes a new file durably under a name that must be free: written to a temporary file, flushed,
 * then linked under its name, which fails (EEXIST) rather than replace a file another repair left
 * there. Its folder is flushed before returning, so a change that relies on the file (a journal
 * rewritten without the lines set aside in it) is made only once the file itself is safe.
 */
export function createFileDurably(path: string, bytes: Buffer): void {
  const dir = dirname(path)
  const {tmp, fd} = openTemporary(path)
  try {
    try {
      writeAll(fd, bytes)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    linkSync(tmp, path)
  } catch (error) {
    removeQuietly(tmp)
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw error
    throw fsError(error, 'write', path)
  }
  removeQuietly(tmp)
  try {
    fsyncDir(dir)
  } catch (error) {
    throw fsError(error, 'flush the folder', dir)
  }
}

/** Keeps a durable private copy of `path` at `copy`, unless a copy is already there. */
export function keepCopy(path: string, copy: string): void {
  if (existsSync(copy)) return
  writeFileDurably(copy, readFileSync(path), {durable: true, backup: false})
}

export function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

export function removeQuietly(path: string): void {
  try {
    unlinkSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
}
