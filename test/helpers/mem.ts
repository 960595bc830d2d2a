import {spawn, spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join, resolve} from 'node:path'

export const ROOT = resolve(import.meta.dirname, '../..')
export const BIN = join(ROOT, 'bin', 'run.js')

export interface RunResult {
  code: number
  stdout: string
  stderr: string
}

/** A fresh MEM_HOME in the system temp folder, removed by `cleanup`. */
export function tempHome(): {home: string; cleanup: () => void} {
  const home = mkdtempSync(join(tmpdir(), 'mem-test-'))
  return {home, cleanup: () => rmSync(home, {recursive: true, force: true})}
}

function childEnv(home: string, env: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = {...process.env, MEM_HOME: home, NO_COLOR: '1'}
  delete base.MEM_AGENT
  for (const [k, v] of Object.entries(env)) {
    if (v === undefined) delete base[k]
    else base[k] = v
  }
  return base
}

/** Runs the built `mem` binary synchronously; stdin is `input` (or empty). */
export function mem(
  home: string,
  args: string[],
  options: {input?: string; env?: Record<string, string | undefined>} = {},
): RunResult {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: childEnv(home, options.env),
    input: options.input ?? '',
    encoding: 'utf8',
  })
  return {code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr}
}

/** The same, asynchronously, for running many processes at once. */
export function memAsync(
  home: string,
  args: string[],
  options: {input?: string; env?: Record<string, string | undefined>} = {},
): Promise<RunResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, [BIN, ...args], {env: childEnv(home, options.env)})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    child.on('error', fail)
    child.on('close', (code) => done({code: code ?? -1, stdout, stderr}))
    child.stdin.end(options.input ?? '')
  })
}

export {childEnv}
