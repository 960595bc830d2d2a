import {COPYFILE_EXCL} from 'node:constants'
import {chmodSync, copyFileSync, mkdirSync, readFileSync, realpathSync, statSync} from 'node:fs'
import {dirname} from 'node:path'
import {isDeepStrictEqual} from 'node:util'

import {MemError} from '../errors.js'
import {DIR_MODE, writeFileDurably} from '../store/file/durable-file.js'

/** What installing a server entry would do to one config file, worked out before touching it. */
export interface ConfigChange {
  /** The file to write: the config file, or the file it links to. */
  file: string
  before: string
  after: string
  created: boolean
  changed: boolean
  /** An entry of the same name was there and is replaced. */
  replaced: boolean
}

/**
 * Adds (or replaces) one server entry under `serversKey`, keeping everything else in the
 * file as it was. A file that is not plain JSON (VS Code allows comments) is refused
 * rather than rewritten, so nothing of the user's is lost.
 */
export function planServerEntry(
  path: string,
  serversKey: string,
  name: string,
  entry: Record<string, unknown>,
): ConfigChange {
  const file = resolveLink(path)
  const before = readIfPresent(file)
  const created = before === undefined
  const config = created || before.trim() === '' ? {} : parseConfig(file, before)
  const servers = config[serversKey] ?? {}
  if (!isPlainObject(servers))
    throw new MemError(
      'invalid_input',
      `${file}: "${serversKey}" is not a JSON object, so mem cannot add itself there; fix that key by hand.`,
    )
  const replaced = name in servers
  const changed = !replaced || !isDeepStrictEqual(servers[name], entry)
  const next = {...config, [serversKey]: {...servers, [name]: entry}}
  const after = changed ? `${JSON.stringify(next, null, indentOf(before ?? ''))}\n` : (before ?? '')
  return {file, before: before ?? '', after, created, changed, replaced}
}

/**
 * Writes the change: a copy of the old file beside it first, then the new text replaces
 * it atomically with the old file's permissions (0600 for a file that did not exist).
 * Returns the backup's path.
 */
export function applyChange(change: ConfigChange, now: Date = new Date()): string | undefined {
  if (!change.changed) return undefined
  let backup: string | undefined
  let mode: number | undefined
  if (!change.created) {
    mode = statSync(change.file).mode & 0o777
    backup = copyBeside(change.file, now)
  } else mkdirSync(dirname(change.file), {recursive: true, mode: DIR_MODE})
  writeFileDurably(change.file, change.after, {durable: true, backup: false})
  if (mode !== undefined) chmodSync(change.file, mode)
  return backup
}

function copyBeside(file: string, now: Date): string {
  const stamp = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z')
  for (let n = 0; ; n++) {
    const backup = `${file}.mem-backup-${stamp}${n === 0 ? '' : `-${n}`}`
    try {
      copyFileSync(file, backup, COPYFILE_EXCL)
      return backup
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
}

/** A config kept in a dotfiles folder and linked in stays linked: the target is written. */
function resolveLink(path: string): string {
  try {
    return realpathSync(path)
  } catch {
    return path
  }
}

function readIfPresent(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new MemError('io_error', `cannot read ${file}: ${(error as Error).message}`)
  }
}

function parseConfig(file: string, text: string): Record<string, unknown> {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (error) {
    throw new MemError(
      'invalid_input',
      `${file} is not plain JSON (${(error as Error).message}); it may hold comments. mem leaves it untouched: add the entry from "mem mcp config" by hand.`,
    )
  }
  if (!isPlainObject(parsed))
    throw new MemError('invalid_input', `${file} does not hold a JSON object; mem leaves it untouched.`)
  return parsed
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** Keeps the file's own indentation (two spaces when it has none yet). */
function indentOf(text: string): string | number {
  const match = /^[{[]\s*\n([ \t]+)\S/.exec(text)
  return match?.[1] ?? 2
}
