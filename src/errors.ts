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
  ) {
    super(message)
    this.name = 'MemError'
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

export function exitCodeOf(error: MemError): number {
  return exitCodes[error.code]
}

/** Turns anything thrown into a MemError, keeping the cause's message. */
export function asMemError(error: unknown): MemError {
  if (error instanceof MemError) return error
  const err = error as NodeJS.ErrnoException
  if (err && typeof err.code === 'string' && typeof err.syscall === 'string') {
    return new MemError('io_error', `${err.syscall} failed: ${err.message}`)
  }
  return new MemError('internal', err instanceof Error ? err.message : String(error))
}

export function errorJson(error: MemError): {error: {code: ErrorCode; message: string}} {
  return {error: {code: error.code, message: error.message}}
}
