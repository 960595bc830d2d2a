import {accessSync, constants} from 'node:fs'
import {dirname} from 'node:path'

import {describeErrno, MemError} from '../../errors.js'

/**
 * A file-system failure as users should read it: what mem was doing, to which file, why it
 * failed in words, and what became of the change ("nothing was saved"). A MemError passes
 * through unchanged, so the innermost description wins.
 */
export function fsError(error: unknown, operation: string, path: string, outcome?: string): unknown {
  if (error instanceof MemError) return error
  const code = (error as NodeJS.ErrnoException)?.code
  if (typeof code !== 'string') return error
  return new MemError(
    'io_error',
    `could not ${operation} ${path}: ${describeErrno(realCause(code, path))}${outcome ? `; ${outcome}` : ''}`,
  )
}

/**
 * Some failures hide their cause: creating a folder on a read-only file system can report
 * ENOENT for a parent that could not be made. Asking the nearest existing ancestor whether it
 * is writable tells the real one (EROFS, EACCES).
 */
function realCause(code: string, path: string): string {
  if (code !== 'ENOENT') return code
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    try {
      accessSync(dir, constants.W_OK)
      return code
    } catch (error) {
      const inner = (error as NodeJS.ErrnoException).code
      if (inner !== 'ENOENT') return inner ?? code
    }
    if (dirname(dir) === dir) return code
  }
}
