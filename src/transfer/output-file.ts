import {randomBytes} from 'node:crypto'
import {
  closeSync,
  constants,
  fstatSync,
  fsyncSync,
  lstatSync,
  openSync,
  renameSync,
  statSync,
  type Stats,
} from 'node:fs'
import {basename, dirname, join} from 'node:path'

import {MemError} from '../errors.js'
import {FILE_MODE, fsyncDir, removeQuietly} from '../store/file/durable-file.js'
import {writeLinesToFd} from './line-output.js'
import type {OnProgress} from './progress.js'

/**
 * Where `mem export -o PATH` puts its lines. The folder of PATH may be writable by others
 * (a shared /tmp, a synced folder), so nothing there is trusted:
 *
 * - a missing PATH or a regular file is replaced whole: the lines go to a temporary file with an
 *   unpredictable name, created exclusively and never through a link (O_CREAT|O_EXCL|O_NOFOLLOW,
 *   mode 0600), which is then renamed over PATH; a half-written export is never mistaken for a whole one;
 * - a character device or a FIFO (a terminal, /dev/null, a named pipe, /dev/stdout on a pipe) is
 *   written in place, opened without truncating or creating anything, and stays what it was;
 * - a symbolic link to a regular file, a folder, a block device or a socket is refused: a link
 *   planted where the export is expected would otherwise aim it at another file.
 */
export function writeLinesToPath(path: string, lines: Iterable<string>, total: number, onProgress?: OnProgress): void {
  if (writesInPlace(path)) writeInPlace(path, lines, total, onProgress)
  else replaceWhole(path, lines, total, onProgress)
}

const IN_PLACE = 'a character device or a FIFO'

function refuse(path: string, what: string): never {
  throw new MemError(
    'invalid_input',
    `--output ${path} ${what}. Give the path of a regular file (it is replaced whole), ${IN_PLACE}, or "-" for stdout.`,
  )
}

/** True for a target written in place, false for one replaced whole; throws for one refused. */
function writesInPlace(path: string): boolean {
  const own = lstatSync(path, {throwIfNoEntry: false})
  if (own === undefined || own.isFile()) return false
  if (own.isDirectory()) refuse(path, 'is a folder')
  const target = own.isSymbolicLink() ? statSync(path, {throwIfNoEntry: false}) : own
  if (target === undefined) refuse(path, 'is a symbolic link to nothing; mem does not create files through links')
  if (isInPlace(target)) return true
  if (own.isSymbolicLink())
    refuse(
      path,
      `is a symbolic link to a ${kindOf(target)}; mem does not write through links to files (a planted link could aim the export at one of yours)`,
    )
  return refuse(path, `is a ${kindOf(target)}, which an export would damage or cannot open`)
}

function isInPlace(stats: Stats): boolean {
  return stats.isCharacterDevice() || stats.isFIFO()
}

function kindOf(stats: Stats): string {
  if (stats.isFile()) return 'regular file'
  if (stats.isDirectory()) return 'folder'
  if (stats.isBlockDevice()) return 'block device'
  if (stats.isSocket()) return 'socket'
  return 'special file'
}

/** Opens without O_CREAT or O_TRUNC, then checks that what was opened is still a device or FIFO, before writing a byte. */
function writeInPlace(path: string, lines: Iterable<string>, total: number, onProgress?: OnProgress): void {
  const fd = openSync(path, constants.O_WRONLY | constants.O_NOCTTY)
  try {
    const opened = fstatSync(fd)
    if (!isInPlace(opened))
      refuse(path, `changed into a ${kindOf(opened)} while it was being opened; nothing was written`)
    writeLinesToFd(fd, lines, total, onProgress)
  } finally {
    closeSync(fd)
  }
}

const CREATE_EXCLUSIVE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW

/** A temporary file nobody can have planted: a random name, created by this call or not at all. */
function createTemp(path: string): {tmp: string; fd: number} {
  for (let attempt = 0; ; attempt++) {
    const tmp = join(dirname(path), `.${basename(path)}.${randomBytes(12).toString('hex')}.tmp`)
    try {
      return {tmp, fd: openSync(tmp, CREATE_EXCLUSIVE, FILE_MODE)}
    } catch (error) {
      // Something already has that name: never touch it, pick another.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 8) throw error
    }
  }
}

function replaceWhole(path: string, lines: Iterable<string>, total: number, onProgress?: OnProgress): void {
  const {tmp, fd} = createTemp(path)
  try {
    try {
      writeLinesToFd(fd, lines, total, onProgress)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    // rename replaces the name itself: had PATH become a link meanwhile, the link is replaced, never its target.
    renameSync(tmp, path)
  } catch (error) {
    removeQuietly(tmp)
    throw error
  }
  fsyncDir(dirname(path))
}
