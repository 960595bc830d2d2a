import {closeSync, constants, fstatSync, ftruncateSync, openSync, readSync, writeSync} from 'node:fs'
import {createRequire} from 'node:module'
import {setTimeout as sleep} from 'node:timers/promises'

import {MemError} from '../../errors.js'
import {FILE_MODE} from './durable-file.js'
import {fsError} from './fs-errors.js'

const DEFAULT_TIMEOUT_MS = 10_000

/**
 * The file whose kernel lock guards one agent folder. It is a plain file that is never
 * deleted: removing a lock file lets two processes lock two different files of one name.
 * An older mem used a `.lock` folder instead (see docs/adr/0004-kernel-locks.md).
 */
export function lockPath(dir: string): string {
  return `${dir}/write.lock`
}

/** Left by an older mem that locked with proper-lockfile: no mem reads or honours them now. */
export function legacyLockPaths(dir: string): string[] {
  return [`${dir}/.lock`, `${dir}/.lock-takeover`]
}

/** How long a client waits for the lock before giving up (MEM_LOCK_TIMEOUT_MS, default 10 s). */
export function lockTimeoutMs(): number {
  const fromEnv = Number(process.env.MEM_LOCK_TIMEOUT_MS)
  return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_TIMEOUT_MS
}

interface NativeLocks {
  tryLock(fd: number): boolean
  unlock(fd: number): void
}

let native: NativeLocks | undefined

/** Loaded by the first write only: a read never locks, so a cold search does not pay for the addon. */
function kernelLocks(): NativeLocks {
  native ??= createRequire(import.meta.url)('fs-native-extensions') as NativeLocks
  return native
}

/**
 * Runs `fn` while holding the kernel lock of one agent folder (an open-file-description lock
 * on Linux, flock on macOS, LockFileEx on Windows). The kernel frees it the moment its holder
 * exits, by any signal; a holder that is stopped or stalled keeps it, however long, so no
 * other writer can ever go ahead under it. Waiting is bounded: past the timeout the caller
 * gets a clear error that says who holds the lock, instead of a hang.
 */
export async function withLock<T>(dir: string, fn: () => T | Promise<T>): Promise<T> {
  const fd = await acquire(dir)
  try {
    return await fn()
  } finally {
    try {
      kernelLocks().unlock(fd)
    } finally {
      closeSync(fd)
    }
  }
}

/**
 * Runs `fn` under the lock of one agent folder if no other process holds it right now, and
 * returns undefined at once, without running it, if one does: for work a reader may do for
 * the next process's sake, which must never make it wait for a writer (one that is stopped, say).
 */
export function withLockIfFree<T>(dir: string, fn: () => T): T | undefined {
  const fd = openLockFile(lockPath(dir))
  try {
    if (!kernelLocks().tryLock(fd)) return undefined
    try {
      writeHolder(fd)
      return fn()
    } finally {
      kernelLocks().unlock(fd)
    }
  } finally {
    closeSync(fd)
  }
}

async function acquire(dir: string): Promise<number> {
  const path = lockPath(dir)
  const fd = openLockFile(path)
  try {
    const deadline = Date.now() + lockTimeoutMs()
    let wait = 2
    while (!kernelLocks().tryLock(fd)) {
      if (Date.now() >= deadline) throw timedOut(dir, readHolder(fd))
      await sleep(wait + Math.random() * wait)
      wait = Math.min(wait * 2, 50)
    }
    writeHolder(fd)
    return fd
  } catch (error) {
    closeSync(fd)
    throw error
  }
}

function openLockFile(path: string): number {
  let fd: number
  try {
    // O_NOFOLLOW: a link planted under this name is refused, never followed to another file.
    fd = openSync(path, constants.O_RDWR | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0), FILE_MODE)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ELOOP' || code === 'EMLINK') throw badLockFile(path, 'it is a symbolic link')
    if (code === 'EISDIR') throw badLockFile(path, 'it is a folder')
    throw fsError(error, 'open the lock file', path, 'Nothing was changed.')
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd)
    throw badLockFile(path, 'it is not a regular file')
  }
  return fd
}

function badLockFile(path: string, what: string): MemError {
  return new MemError(
    'io_error',
    `cannot lock ${path}: ${what}, and mem's lock file must be a regular file. Nothing was changed. Remove it ("mem doctor --fix" does) and try again.`,
  )
}

interface Holder {
  pid: number
  since: string
}

/**
 * Who holds the lock, for a waiter that gives up: a small record the holder writes over the
 * file's start, padded with spaces to a fixed length that every holder's record fits in, so
 * that it always covers the record before it and the file need not be cut to its length.
 */
const HOLDER_BYTES = 64

function writeHolder(fd: number): void {
  const record = JSON.stringify({pid: process.pid, since: new Date().toISOString()})
  const bytes = Buffer.from(`${record.padEnd(HOLDER_BYTES - 1)}\n`)
  try {
    writeSync(fd, bytes, 0, bytes.length, 0)
    // Only a record that outgrew the padding (never: a pid of up to 19 digits fits) leaves a longer file to cut.
    if (bytes.length > HOLDER_BYTES) ftruncateSync(fd, bytes.length)
  } catch {
    // Only a waiter's error message needs it: a full disk must not stop the write it guards.
  }
}

function readHolder(fd: number): Holder | undefined {
  try {
    const buf = Buffer.alloc(256)
    const n = readSync(fd, buf, 0, buf.length, 0)
    const parsed = JSON.parse(buf.subarray(0, n).toString('utf8')) as Partial<Holder>
    return typeof parsed.pid === 'number' && typeof parsed.since === 'string'
      ? {pid: parsed.pid, since: parsed.since}
      : undefined
  } catch {
    return undefined
  }
}

function timedOut(dir: string, holder: Holder | undefined): MemError {
  const who = holder
    ? `mem process ${holder.pid} has held it since ${holder.since}`
    : 'another mem process is writing to it'
  const what = holder
    ? `If process ${holder.pid} is stopped (Ctrl-Z, a debugger, kill -STOP), resume it ("fg", or "kill -CONT ${holder.pid}") or end it: the lock is freed the moment it exits. Then try again.`
    : 'Try again once it has finished.'
  return new MemError(
    'lock_timeout',
    `could not lock ${dir} within ${lockTimeoutMs()} ms: ${who}. Nothing was changed. ${what}`,
  )
}
