import {randomBytes} from 'node:crypto'
import {closeSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'

import type {SyncAdapter} from 'lowdb'

import {MemError} from '../errors.js'

export const FILE_MODE = 0o600
export const DIR_MODE = 0o700

export function backupPath(path: string): string {
  return `${path}.bak`
}

export function isTempFile(name: string): boolean {
  return name.startsWith('.') && name.endsWith('.tmp')
}

/**
 * A lowdb adapter that writes the way a crash cannot hurt: a temporary file in the same
 * folder, fsync, keep the previous version as `<file>.bak` (a hard link, so no copy),
 * rename over the old file, fsync the folder. A missing file reads as "no data yet";
 * a file that does not parse is an error and is never written over by a reader.
 * Cross-process exclusion is the caller's job (store/lock.ts).
 */
export class DurableJsonFile implements SyncAdapter<unknown> {
  constructor(
    readonly path: string,
    private readonly options: {durable: boolean; backup: boolean} = {durable: true, backup: true},
  ) {}

  read(): unknown {
    let text: string
    try {
      text = readFileSync(this.path, 'utf8')
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null
      throw error
    }
    try {
      return JSON.parse(text)
    } catch (error) {
      throw corruptFile(this.path, `it is not valid JSON (${(error as Error).message})`)
    }
  }

  write(data: unknown): void {
    writeFileDurably(this.path, `${JSON.stringify(data)}\n`, this.options)
  }
}

export function corruptFile(path: string, problem: string): MemError {
  return new MemError(
    'corrupt_file',
    `${path} cannot be used: ${problem}. It was left untouched. Run "mem doctor" to inspect it and "mem doctor --fix" to restore the last good copy.`,
  )
}

export function writeFileDurably(path: string, text: string, options = {durable: true, backup: true}): void {
  const dir = dirname(path)
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`)
  const fd = openSync(tmp, 'wx', FILE_MODE)
  try {
    try {
      writeAll(fd, text)
      if (options.durable) fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    if (options.backup) keepBackup(path)
    renameSync(tmp, path)
  } catch (error) {
    removeQuietly(tmp)
    throw error
  }
  if (options.durable) fsyncDir(dir)
}

function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8')
  let offset = 0
  while (offset < bytes.length) offset += writeSync(fd, bytes, offset)
}

function keepBackup(path: string): void {
  const bak = backupPath(path)
  removeQuietly(bak)
  try {
    linkSync(path, bak)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
}

export function fsyncDir(dir: string): void {
  const fd = openSync(dir, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

export function removeQuietly(path: string): void {
  try {
    unlinkSync(path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
}
