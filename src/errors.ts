/**
 * Every failure the user can see is a MemError with a code. The code decides the CLI exit
 * status and is what `--json` prints; MCP reports the message as a tool error. This file is
 * the one place where that mapping lives.
 */
export type ErrorCode =
  | 'invalid_input'
  | 'not_found'
  | 'forbidden'
  | 'no_checkpoint'
  | 'corrupt_file'
  | 'unsupported_version'
  | 'lock_timeout'
  | 'io_error'
  | 'internal'

export class MemError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** More about the failure for a script, printed beside code and message in the --json error object. */
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(message)
    this.name = 'MemError'
  }
}

/**
 * A failure whose message names the operation's input fields (`agent_id`, `fact_id`): the words
 * an MCP client uses. The CLI renames them to its own flags when it prints the error
 * (src/cli/cli-words.ts), so one message serves both surfaces.
 */
export class FieldError extends MemError {
  constructor(
    code: ErrorCode,
    message: string,
    /** The operation's input fields, the only words of the message that name one. */
    readonly fields: readonly string[],
  ) {
    super(code, message)
  }
}

/** Input that failed an operation's checks, in a message that names its input fields (and tools, `checkpoint_save`). */
export class InputError extends FieldError {
  constructor(message: string, fields: readonly string[]) {
    super('invalid_input', message, fields)
  }
}

const exitCodes: Record<ErrorCode, number> = {
  invalid_input: 2,
  not_found: 3,
  forbidden: 1,
  no_checkpoint: 3,
  corrupt_file: 1,
  unsupported_version: 1,
  lock_timeout: 1,
  io_error: 1,
  internal: 1,
}

/** A result printed whole that still has work left for the user (`mem doctor` with problems left). */
export const UNFINISHED_EXIT = 1

export function exitCodeOf(error: MemError): number {
  return exitCodes[error.code]
}

/** Turns anything thrown into a MemError, keeping the cause's message. */
export function asMemError(error: unknown): MemError {
  if (error instanceof MemError) return error
  const err = error as NodeJS.ErrnoException
  if (err && typeof err.code === 'string' && typeof err.syscall === 'string') {
    const target = err.path === undefined ? '' : ` ${err.path}`
    return new MemError(
      'io_error',
      `could not ${SYSCALL_WORDS[err.syscall] ?? err.syscall}${target}: ${describeErrno(err.code)}`,
    )
  }
  return new MemError('internal', err instanceof Error ? err.message : String(error))
}

/** What a system call was doing, in words (for a file-system error no mem code path described). */
const SYSCALL_WORDS: Record<string, string> = {
  open: 'open',
  read: 'read',
  write: 'write',
  rename: 'replace',
  link: 'link',
  unlink: 'remove',
  mkdir: 'create the folder',
  rmdir: 'remove the folder',
  fsync: 'flush to disk',
  stat: 'look at',
  lstat: 'look at',
  fstat: 'look at',
  scandir: 'list the folder',
  chmod: 'change the mode of',
}

const ERRNO_WORDS: Record<string, string> = {
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EIO: 'input/output error (the disk or file system failed)',
  ENOENT: 'no such file or folder',
  EEXIST: 'it already exists',
  ELOOP: 'it is a symbolic link, which mem does not follow',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'it is a folder',
  EMFILE: 'too many open files',
  ENFILE: 'too many open files on the system',
  EBUSY: 'the file is busy',
  ENAMETOOLONG: 'the name is too long',
  EADDRINUSE: 'another program already listens on that port',
  EADDRNOTAVAIL: 'this machine has no such address',
}

/** An errno code in words, with the code itself for searching: "no space left on device (ENOSPC)". */
export function describeErrno(code: string): string {
  const words = ERRNO_WORDS[code]
  return words ? `${words} (${code})` : code
}

export function errorJson(error: MemError): {error: {code: ErrorCode; message: string} & Record<string, unknown>} {
  return {error: {code: error.code, message: error.message, ...error.details}}
}
