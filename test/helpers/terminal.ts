import {spawnSync} from 'node:child_process'

import {BIN, childEnv, type RunResult} from './mem.js'

/**
 * Runs the built `mem` with stdin, stdout and stderr on a pseudo-terminal (util-linux `script`),
 * as a person at a terminal runs it; stdout holds everything the terminal showed.
 */
export function memAtTerminal(home: string, args: string[], env: Record<string, string | undefined> = {}): RunResult {
  const quoted = [process.execPath, BIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ')
  const r = spawnSync('script', ['-qec', quoted, '/dev/null'], {
    env: childEnv(home, env),
    input: '',
    encoding: 'utf8',
    timeout: 30_000,
  })
  return {code: r.status ?? -1, stdout: r.stdout.replaceAll('\r\n', '\n'), stderr: r.stderr}
}
