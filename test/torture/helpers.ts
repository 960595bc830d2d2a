import {spawn, type ChildProcess} from 'node:child_process'
import {closeSync, openSync, readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {join} from 'node:path'
import {setTimeout as sleep} from 'node:timers/promises'

import {BIN, childEnv, type RunResult} from '../helpers/mem.js'
import {agentDir} from '../../src/store/file/paths.js'

/**
 * Set for every process in these tests. The current lock ignores it; a lock that judged
 * holders by the age of a lock file would take over a stalled holder's lock after 2 s, and
 * every stall here lasts longer than that.
 */
export const OLD_STALE = {MEM_LOCK_STALE_MS: '2000'}

export interface Running {
  child: ChildProcess
  done: Promise<RunResult>
}

/** Runs `prefix… mem args…` (prefix: a strace command line, say) without waiting for it. */
export function startMem(
  home: string,
  args: string[],
  options: {prefix?: string[]; env?: Record<string, string>; input?: string} = {},
): Running {
  const command = [...(options.prefix ?? []), process.execPath, BIN, ...args]
  const child = spawn(command[0]!, command.slice(1), {env: childEnv(home, {...OLD_STALE, ...options.env})})
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (stdout += d))
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d))
  child.stdin!.end(options.input ?? '')
  const done = new Promise<RunResult>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({code: code ?? (signal ? 128 : -1), stdout, stderr}))
  })
  return {child, done}
}

/** strace arguments that tamper with `syscall` as `inject` says (strace's own words), only on `path` when given. */
function inject(syscall: string, what: string, path?: string): string[] {
  const only = path === undefined ? [] : ['-P', path]
  return [
    'strace',
    '-f',
    '-qq',
    '-o',
    '/dev/null',
    ...only,
    '-e',
    `trace=${syscall}`,
    '-e',
    `inject=${syscall}:${what}`,
  ]
}

/** strace arguments that make a process's `nth` call of `syscall` stall for `ms`, before (enter) or after (exit) it runs. */
export function stall(syscall: 'fsync' | 'rename', ms: number, when: 'enter' | 'exit', nth = 1): string[] {
  return inject(syscall, `delay_${when}=${ms * 1000}:when=${nth}`)
}

/**
 * strace arguments that make a process's `nth` call of `syscall` on `path` (a segment's journal,
 * say, which need not exist yet: strace follows the descriptors opened on it) stall for `ms`.
 */
export function stallOn(
  path: string,
  syscall: 'openat' | 'write',
  ms: number,
  when: 'enter' | 'exit',
  nth = 1,
): string[] {
  return inject(syscall, `delay_${when}=${ms * 1000}:when=${nth}`, path)
}

/** strace arguments that make calls of `syscall` (on `path` only, when given) fail with `errno`, from the `nth` on. */
export function failing(syscall: string, errno: string, nth: number, path?: string): string[] {
  return inject(syscall, `error=${errno}:when=${nth}+`, path)
}

/**
 * Waits until a process for which `accept` is true holds the lock of `agent` (the kernel lock on
 * its `write.lock` is taken, and the pid it wrote there is accepted) and returns its pid. Gives
 * up (throws) after 20 s, or once `gone` says that process has exited.
 */
export async function untilWriting(
  home: string,
  agent: string,
  accept: (pid: number) => boolean = () => true,
  gone: () => boolean = () => false,
): Promise<number> {
  const deadline = Date.now() + 20_000
  const lock = join(agentDir(home, agent), 'write.lock')
  for (;;) {
    const pid = holder(lock)
    if (pid !== undefined && accept(pid)) return pid
    if (gone()) throw new Error(`the process expected to write to ${agent} ended first`)
    if (Date.now() > deadline) throw new Error(`nobody wrote to ${agent} within 20 s`)
    await sleep(1)
  }
}

const locks = createRequire(import.meta.url)('fs-native-extensions') as {
  tryLock(fd: number): boolean
  unlock(fd: number): void
}

/** The pid of the process holding the lock file's kernel lock, or undefined when nobody holds it. */
function holder(lock: string): number | undefined {
  let fd: number
  try {
    fd = openSync(lock, 'r+')
  } catch {
    return undefined
  }
  try {
    if (locks.tryLock(fd)) {
      locks.unlock(fd)
      return undefined
    }
    // Just after taking the lock, the holder may not have written its pid over the last holder's yet.
    const pid = (JSON.parse(readFileSync(fd, 'utf8')) as {pid?: unknown}).pid
    if (typeof pid !== 'number') return undefined
    process.kill(pid, 0)
    return pid
  } catch {
    return undefined
  } finally {
    closeSync(fd)
  }
}

/** The id `mem add --json` acknowledged, or undefined when it failed. */
export function ackedId(r: RunResult): string | undefined {
  if (r.code !== 0) return undefined
  return (JSON.parse(r.stdout) as {fact_id?: string}).fact_id
}
