/**
 * Loads a CommonJS file through V8's code cache, kept in the user's cache folder. Compiling the
 * fast path's one file (dist/fast.cjs) is a fifth of a cold `mem search`, and Node 20 has no
 * module compile cache of its own (`module.enableCompileCache` arrived in Node 22.1), so
 * bin/run.js compiles it here with the code V8 made on an earlier run (docs/performance.md).
 *
 * The cache is only ever a shortcut: a cache that is missing, damaged, made by another Node or
 * for other code, or a folder that cannot be trusted or written, costs the compile and nothing
 * else. Its name holds a hash of the source, because V8 checks only the source's length.
 */
import {createHash, randomBytes} from 'node:crypto'
import {
  closeSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
  type Stats,
} from 'node:fs'
import {createRequire} from 'node:module'
import {homedir, platform} from 'node:os'
import {basename, dirname, isAbsolute, join} from 'node:path'
import {Script} from 'node:vm'

import {DIR_MODE, FILE_MODE} from './store/file/durable-file.js'

export interface LoadedModule {
  exports: Record<string, unknown>
  /** Writes the code V8 has compiled so far, if the cache did not already hold it. Never throws. */
  saveCache(): void
}

/** What may name a command's cache: a command word, never a path. */
const VARIANT = /^[a-z]{1,20}$/

/** The per-user cache folder: $XDG_CACHE_HOME/mem, ~/.cache/mem, ~/Library/Caches/mem or %LOCALAPPDATA%\mem\Cache. */
export function codeCacheDir(env: NodeJS.ProcessEnv = process.env, os: string = platform()): string | undefined {
  if (env.MEM_NO_CODE_CACHE) return undefined
  // As the XDG spec says, a relative XDG_CACHE_HOME is ignored.
  if (env.XDG_CACHE_HOME && isAbsolute(env.XDG_CACHE_HOME)) return join(env.XDG_CACHE_HOME, 'mem')
  if (os === 'win32') return env.LOCALAPPDATA ? join(env.LOCALAPPDATA, 'mem', 'Cache') : undefined
  const home = env.HOME || homedir()
  if (!home) return undefined
  return os === 'darwin' ? join(home, 'Library', 'Caches', 'mem') : join(home, '.cache', 'mem')
}

/**
 * `command`: the command about to run. Each keeps its own cache, because V8 caches the functions
 * compiled by the time the cache is made, and a search's ranking is not among those of an add.
 */
export function loadWithCodeCache(
  file: string,
  command: string | undefined,
  dir: string | undefined = codeCacheDir(),
): LoadedModule {
  const source = readFileSync(file, 'utf8')
  const variant = command !== undefined && VARIANT.test(command) ? command : 'other'
  const build = `${process.version}-${process.arch}-${sha256(source)}`
  const cacheFile = dir === undefined ? undefined : join(dir, `${basename(file)}-${variant}-${build}.v8`)
  const cachedData = cacheFile !== undefined && trusted(dirname(cacheFile)) ? readOwn(cacheFile) : undefined
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`
  const script = new Script(wrapped, {filename: file, cachedData})
  const loaded = {exports: {} as Record<string, unknown>}
  const run = script.runInThisContext() as (...args: unknown[]) => void
  run.call(loaded.exports, loaded.exports, createRequire(file), loaded, file, dirname(file))
  const fresh = cachedData === undefined || script.cachedDataRejected === true
  return {
    exports: loaded.exports,
    saveCache: () => {
      if (fresh && cacheFile !== undefined) save(cacheFile, `-${build}.v8`, () => script.createCachedData())
    },
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32)
}

/** Our own folder, not a link, not open to others: a cache anyone else could write would run their code. */
function trusted(dir: string): boolean {
  try {
    const stat = lstatSync(dir)
    return stat.isDirectory() && ours(stat)
  } catch {
    return false
  }
}

/** Owned by this user and writable by no one else; Windows has neither uids nor mode bits to ask. */
function ours(stat: Stats): boolean {
  if (typeof process.getuid !== 'function') return true
  return stat.uid === process.getuid() && (stat.mode & 0o022) === 0
}

function readOwn(file: string): Buffer | undefined {
  let fd: number | undefined
  try {
    fd = openSync(file, 'r')
    const stat = fstatSync(fd)
    if (!stat.isFile() || !ours(stat)) return undefined
    return readFileSync(fd)
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

/**
 * Written beside, then renamed over, so that another process reads a whole cache or none. Caches
 * of this file made for another build (another version of mem or of Node) go, those of the other
 * commands stay; a write that fails leaves nothing.
 */
function save(cacheFile: string, buildSuffix: string, data: () => Buffer): void {
  const dir = dirname(cacheFile)
  const tmp = `${cacheFile}.${randomBytes(6).toString('hex')}.tmp`
  let fd: number | undefined
  try {
    mkdirSync(dir, {recursive: true, mode: DIR_MODE})
    if (!trusted(dir)) return
    fd = openSync(tmp, 'wx', FILE_MODE)
    const bytes = data()
    writeSync(fd, bytes, 0, bytes.length)
    closeSync(fd)
    fd = undefined
    renameSync(tmp, cacheFile)
    removeOtherBuilds(dir, cacheFile, buildSuffix)
  } catch {
    try {
      if (fd !== undefined) closeSync(fd)
      rmSync(tmp, {force: true})
    } catch {
      // Nothing was made that could be left behind (the folder is not one).
    }
  }
}

function removeOtherBuilds(dir: string, kept: string, buildSuffix: string): void {
  const prefix = `${basename(kept).split('-')[0]}-`
  const staleTmp = Date.now() - 3_600_000
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (!name.startsWith(prefix) || path === kept) continue
    const current = name.endsWith(buildSuffix) && VARIANT.test(name.slice(prefix.length, -buildSuffix.length))
    if (name.endsWith('.v8') ? !current : name.endsWith('.tmp') && lstatSync(path).mtimeMs < staleTmp)
      rmSync(path, {force: true})
  }
}
