import fs from 'node:fs'
import {setTimeout as sleep} from 'node:timers/promises'

import lockfile from 'proper-lockfile'

import {MemError} from '../errors.js'
import {DIR_MODE} from './durable-file.js'

/** A holder that died leaves its lock behind; after this long without a refresh it is taken over. */
export const STALE_LOCK_MS = 4000
/** A live holder refreshes its lock every second: below this its lock could be mistaken for a dead one's. */
export const MIN_STALE_LOCK_MS = 2000
const REFRESH_MS = 1000
const DEFAULT_TIMEOUT_MS = 10_000

export function lockPath(dir: string): string {
  return `${dir}/.lock`
}

function envMs(name: string, fallback: number, floor = 1): number {
  const fromEnv = Number(process.env[name])
  return Number.isFinite(fromEnv) && fromEnv > 0 ? Math.max(fromEnv, floor) : fallback
}

/** How long a client waits for the lock before giving up (MEM_LOCK_TIMEOUT_MS, default 10 s). */
export function lockTimeoutMs(): number {
  return envMs('MEM_LOCK_TIMEOUT_MS', DEFAULT_TIMEOUT_MS)
}

/** How old an unrefreshed lock must be to count as left by a dead holder (MEM_LOCK_STALE_MS, 2 s at least, default 4 s). */
export function staleLockMs(): number {
  return envMs('MEM_LOCK_STALE_MS', STALE_LOCK_MS, MIN_STALE_LOCK_MS)
}

/** The lock is a directory; proper-lockfile makes it with the process umask, so it is made private here. */
const privateFs = {
  ...fs,
  mkdir: (path: string, callback: (error: NodeJS.ErrnoException | null) => void) => fs.mkdir(path, {mode: DIR_MODE}, callback),
}

/** True when the lock of `dir` exists and has not been refreshed within the stale time. */
export function isLockStale(dir: string): boolean {
  return isStale(lockPath(dir))
}

/**
 * Runs `fn` while holding the inter-process lock of one agent folder. Waiting is bounded:
 * past the timeout the caller gets a clear error instead of a hang. If the lock is lost
 * while held (another process judged it stale), `fn`'s result is refused rather than
 * trusted, because its writes may have raced another writer.
 */
export async function withLock<T>(dir: string, fn: () => T | Promise<T>): Promise<T> {
  let compromised: Error | undefined
  const release = await acquire(dir, (error) => {
    compromised = error
  })
  try {
    const result = await fn()
    if (compromised) throw new MemError('io_error', `the lock on ${dir} was lost while writing: ${compromised.message}`)
    return result
  } finally {
    await release().catch(() => {})
  }
}

async function acquire(dir: string, onCompromised: (error: Error) => void): Promise<() => Promise<void>> {
  const deadline = Date.now() + lockTimeoutMs()
  let wait = 2
  for (;;) {
    try {
      return await lockfile.lock(dir, {
        lockfilePath: lockPath(dir),
        realpath: false,
        // proper-lockfile would remove a stale lock itself, but two waiters can then each remove
        // the other's fresh lock and both go ahead. Stale locks are taken over by takeOver() instead.
        stale: NEVER_STALE_MS,
        update: REFRESH_MS,
        fs: privateFs,
        retries: 0,
        onCompromised,
      })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error
    }
    if (isLockStale(dir) && takeOver(dir)) continue
    if (Date.now() >= deadline) {
      throw new MemError(
        'lock_timeout',
        `could not lock ${dir} within ${lockTimeoutMs()} ms: another mem process is writing to it. Nothing was changed. Try again; if no mem process is running, "mem doctor --fix" removes a stale lock.`,
      )
    }
    await sleep(wait + Math.random() * wait)
    wait = Math.min(wait * 2, 50)
  }
}

const NEVER_STALE_MS = 365 * 24 * 3600 * 1000

export function takeoverPath(dir: string): string {
  return `${dir}/.lock-takeover`
}

/**
 * Removes a stale lock so that waiters can compete for it again; false when another process is doing it. Only the process holding the
 * takeover guard may remove it, and it looks again under the guard: a waiter that judged the
 * lock stale a moment ago can therefore never remove a fresh lock that another waiter just
 * took. The guard is held for two system calls; one left by a process killed in between is
 * itself removed once stale.
 */
function takeOver(dir: string): boolean {
  const guard = takeoverPath(dir)
  try {
    fs.mkdirSync(guard, {mode: DIR_MODE})
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    if (isStale(guard)) removeDir(guard)
    return false
  }
  try {
    if (isLockStale(dir)) removeDir(lockPath(dir))
    return true
  } finally {
    removeDir(guard)
  }
}

/** True when `path` exists and was last touched longer ago than the stale time. */
export function isStale(path: string): boolean {
  try {
    return fs.statSync(path).mtimeMs < Date.now() - staleLockMs()
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw error
  }
}

function removeDir(path: string): void {
  try {
    fs.rmdirSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
}
