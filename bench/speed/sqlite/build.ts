import {createHash} from 'node:crypto'
import {execFileSync} from 'node:child_process'
import {existsSync, mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {basename, join, resolve} from 'node:path'

import {buildSync} from 'esbuild'

const ROOT = resolve(import.meta.dirname, '../../..')
/**
 * Inside the checkout (git-ignored). The scripts find better-sqlite3 in this folder's own
 * node_modules and the MCP SDK, further up, in the checkout's.
 */
const OUT = join(ROOT, '.mem-bench', 'sqlite')
/**
 * Installed here on the first comparison rather than as a devDependency: it is a 28 MB native
 * module that only this benchmark loads, and every `npm ci` would build or download it.
 */
const BETTER_SQLITE3 = 'better-sqlite3@12.11.1'

export interface SqliteScripts {
  server: string
  cli: string
  /** The SQLite library better-sqlite3 was built with. */
  version: string
}

/**
 * Compiles the SQLite baseline's server and command line to plain CommonJS, as mem's binary is
 * built: run under tsx, each cold process would pay for compiling TypeScript and mem would not.
 * Their packages stay ordinary imports from node_modules, as an engineer's script would load them.
 */
export function buildSqliteScripts(): SqliteScripts {
  installBetterSqlite()
  let version: string
  try {
    const Database = createRequire(join(OUT, 'package.json'))('better-sqlite3') as typeof import('better-sqlite3')
    const db = new Database(':memory:')
    version = (db.prepare('SELECT sqlite_version() AS v').get() as {v: string}).v
    db.close()
  } catch (error) {
    throw new Error(
      `better-sqlite3 does not load (${(error as Error).message.split('\n')[0]}): the SQLite baseline needs its native module; remove ${join(OUT, 'node_modules')} to install it again, or skip the comparison with --compare none`,
    )
  }
  const built = buildSync({
    entryPoints: {server: join(import.meta.dirname, 'server.ts'), cli: join(import.meta.dirname, 'cli.ts')},
    outdir: '/',
    outExtension: {'.js': '.cjs'},
    bundle: true,
    packages: 'external',
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    logLevel: 'error',
    write: false,
  })
  // A folder per version of the scripts: a benchmark still running an older one keeps it.
  const hash = createHash('sha256')
  for (const file of built.outputFiles) hash.update(file.path).update(file.text)
  const dir = join(OUT, hash.digest('hex').slice(0, 12))
  mkdirSync(dir, {recursive: true})
  for (const file of built.outputFiles) writeIfChanged(join(dir, basename(file.path)), file.text)
  return {server: join(dir, 'server.cjs'), cli: join(dir, 'cli.cjs'), version}
}

function installBetterSqlite(): void {
  const marker = join(OUT, 'node_modules', '.installed')
  if (existsSync(marker) && readFileSync(marker, 'utf8') === BETTER_SQLITE3) return
  mkdirSync(OUT, {recursive: true})
  writeIfChanged(join(OUT, 'package.json'), '{"private":true}\n')
  process.stderr.write(`installing ${BETTER_SQLITE3} for the SQLite baseline into ${OUT}\n`)
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--no-save', BETTER_SQLITE3], {
    cwd: OUT,
    stdio: ['ignore', 'ignore', 'inherit'],
  })
  writeFileSync(marker, BETTER_SQLITE3)
}

/** Another benchmark may be running these very scripts: each is written by a rename, never seen half written. */
function writeIfChanged(path: string, text: string): void {
  let old: string | undefined
  try {
    old = readFileSync(path, 'utf8')
  } catch {
    old = undefined
  }
  if (old === text) return
  writeFileSync(`${path}.${process.pid}`, text)
  renameSync(`${path}.${process.pid}`, path)
}
