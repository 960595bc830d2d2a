import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {childEnv} from './mem.js'

let runs = 0

/**
 * Every module URL the ESM loader resolves while `node args…` runs with MEM_HOME=home (a
 * resolve hook registered before anything else loads appends each one to a log), then, at exit,
 * every file CommonJS `require` loaded (bin/run.js and the fast path are CommonJS).
 */
export function modulesResolvedBy(
  home: string,
  args: string[],
  env: Record<string, string | undefined> = {},
): string[] {
  const log = join(home, `imports-${process.pid}-${runs++}.log`)
  const hooks = `import {appendFileSync} from 'node:fs'
export async function resolve(specifier, context, next) {
  const result = await next(specifier, context)
  appendFileSync(${JSON.stringify(log)}, result.url + '\\n')
  return result
}`
  const register = `import {register, createRequire} from 'node:module'
import {appendFileSync} from 'node:fs'
import {pathToFileURL} from 'node:url'
register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)})
const required = createRequire(pathToFileURL(process.cwd() + '/').href).cache
process.on('exit', () => appendFileSync(${JSON.stringify(log)}, Object.keys(required).map((p) => pathToFileURL(p).href + '\\n').join('')))`
  const r = spawnSync(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(register)}`, ...args], {
    env: childEnv(home, env),
    encoding: 'utf8',
  })
  assert.equal(r.status, 0, r.stderr)
  return readFileSync(log, 'utf8').split('\n')
}

/** The URLs of packages named by `names` (a regexp alternation) among `urls`. */
export function packagesAmong(urls: string[], names: string): string[] {
  return urls.filter((u) => new RegExp(`/node_modules/(${names})/`).test(u))
}
