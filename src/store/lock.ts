import {setTimeout as sleep} from 'node:timers/promises'

import lockfile from 'proper-lockfile'

import {MemError} from '../errors.js'

/** A holder that died leaves its lock behind; after this long without a refresh it is taken over. */
export const STALE_LOCK_MS = 4000
const REFRESH_MS = 1000
const DEFAULT_TIMEOUT_MS = 10_000

export function lockPath(dir: string): string {
  return `${dir}/.lock`
}

function timeoutMs(): number {
  const fromEnv = Number(process.env.MEM_LOCK_TIMEOUT_MS)
  return Number.isFinite(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_TIMEOUT_MS
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
  const deadline = Date.now() + timeoutMs()
  let wait = 2
  for (;;) {
    try {
      return await lockfile.lock(dir, {
        lockfilePath: lockPath(dir),
        realpath: false,
        stale: STALE_LOCK_MS,
        update: REFRESH_MS,
        retries: 0,
        onCompromised,
      })
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ELOCKED') throw error
    }
    if (Date.now() >= deadline) {
      throw new MemError(
        'lock_timeout',
        `another mem process has held the lock on ${dir} for ${timeoutMs()} ms. Try again; if no mem process is running, "mem doctor --fix" removes a stale lock.`,
      )
    }
    await sleep(wait + Math.random() * wait)
    wait = Math.min(wait * 2, 50)
  }
}
