import {readdirSync, readFileSync, statSync} from 'node:fs'
import {join} from 'node:path'

import {mem, type RunResult} from '../helpers/mem.js'

/** Runs mem and fails the test with its stderr when it does not exit 0. */
export function ok(
  home: string,
  args: string[],
  options: {input?: string; env?: Record<string, string | undefined>} = {},
): RunResult {
  const r = mem(home, args, options)
  if (r.code !== 0) throw new Error(`mem ${args.join(' ')} exited ${r.code}: ${r.stderr}`)
  return r
}

export function json<T = Record<string, unknown>>(r: RunResult): T {
  return JSON.parse(r.stdout) as T
}

export function lines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
}

/** Every file under the store with its bytes: equal snapshots mean nothing was written. */
export function snapshot(home: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (dir: string): void => {
    let entries: string[]
    try {
      entries = readdirSync(dir)
    } catch {
      return
    }
    for (const name of entries) {
      const path = join(dir, name)
      if (statSync(path).isDirectory()) walk(path)
      else if (!name.endsWith('.lock')) out[path] = readFileSync(path, 'utf8')
    }
  }
  walk(home)
  return out
}

/** A small store with history: an update, a delete, and checkpoints for two agents. */
export function seed(home: string): {alice: string[]; bob: string[]} {
  const id = (r: RunResult): string => json<{fact_id: string}>(r).fact_id
  const a1 = id(ok(home, ['add', 'Prefers pnpm as package manager', '--agent', 'alice', '--tag', 'tooling', '--json']))
  const a2 = id(ok(home, ['add', 'Deploys happen on Tuesdays', '--agent', 'alice', '--json']))
  const a3 = id(
    ok(home, [
      'reflect',
      'update',
      '--fact',
      a1,
      '--content',
      'Prefers bun as package manager',
      '--agent',
      'alice',
      '--json',
    ]),
  )
  ok(home, ['reflect', 'delete', '--fact', a2, '--reason', 'moved to Wednesdays', '--agent', 'alice'])
  ok(home, ['save', '--state', '{"step":1}', '--label', 'first', '--agent', 'alice'])
  ok(home, [
    'save',
    '--state',
    '{"step":2,"todo":["ship"]}',
    '--messages',
    '[{"role":"user","content":"hi"}]',
    '--agent',
    'alice',
  ])
  const b1 = id(ok(home, ['add', 'Likes green tea', '--agent', 'bob', '--json']))
  return {alice: [a1, a2, a3], bob: [b1]}
}
