import {spawnSync} from 'node:child_process'
import {resolve} from 'node:path'

/** The mem to measure: this checkout's, or another build's `bin/run.js` (MEM_BENCH_BIN), to compare two builds with one benchmark. */
export const BIN = process.env.MEM_BENCH_BIN
  ? resolve(process.env.MEM_BENCH_BIN)
  : resolve(import.meta.dirname, '../../bin/run.js')

export interface Timed {
  ms: number
  stdout: string
}

/** Wall time of a whole process, from spawn to exit, as a shell user would see it. */
export function timeProcess(args: string[], env: NodeJS.ProcessEnv, input = ''): Timed {
  const started = process.hrtime.bigint()
  const r = spawnSync(process.execPath, args, {env, input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024})
  const ms = Number(process.hrtime.bigint() - started) / 1e6
  if (r.status !== 0) throw new Error(`${args.join(' ')} exited ${r.status}: ${r.stderr}`)
  return {ms, stdout: r.stdout}
}

export function memEnv(home: string, agent: string): NodeJS.ProcessEnv {
  return {...process.env, MEM_HOME: home, MEM_AGENT: agent, NO_COLOR: '1'}
}

export function mem(home: string, agent: string, args: string[]): Timed {
  return timeProcess([BIN, ...args], memEnv(home, agent))
}

export function nodeBaseline(): Timed {
  return timeProcess(['-e', '0'], process.env)
}
