import {MemError, describeErrno} from '../../errors.js'
import {NoPassword} from './password.js'
import {scrub} from './url.js'

/** How far a failed change got: a retrying client must know whether anything was saved. */
export type Outcome = 'read' | 'none' | 'nothing saved' | 'unknown'

/** SQLSTATE classes and codes that mean "the database is not there right now": retrying later can succeed. */
const UNREACHABLE = /^(08|53|57P0[123])/

/**
 * A failure of PostgreSQL or of the connection to it, as a MemError in mem's words. `where` is
 * the URL without its password; every secret is scrubbed from the driver's text as well, so a
 * message can go to a log or a client as it is.
 */
export function databaseError(
  error: unknown,
  where: string,
  secrets: readonly (string | undefined)[],
  outcome: Outcome,
): MemError {
  if (error instanceof MemError) return error
  if (error instanceof NoPassword)
    return new MemError(
      'io_error',
      `login needs a password: PostgreSQL at ${where} asked for one and none was found: ${error.looked}; ${error.fix} (see docs/team.md, Credentials)`,
    )
  const err = error as {code?: unknown; message?: unknown; syscall?: unknown}
  const code = typeof err?.code === 'string' ? err.code : undefined
  const text = scrub(typeof err?.message === 'string' ? err.message : String(error), secrets)
  const after = outcomeWords(outcome)
  if (code !== undefined && typeof err.syscall === 'string')
    return new MemError(
      'io_error',
      `could not reach PostgreSQL at ${where}: ${SOCKET_WORDS[code] ?? describeErrno(code)}${after}; try again once the database is up`,
    )
  // No SQLSTATE: the driver's own failures ("Connection terminated unexpectedly", a connect timeout).
  if (code === undefined || UNREACHABLE.test(code))
    return new MemError(
      'io_error',
      `lost the connection to PostgreSQL at ${where} (${text})${after}; try again once the database is up`,
    )
  if (code === '57014')
    return new MemError(
      'io_error',
      `PostgreSQL at ${where} stopped a statement that ran past its time limit (${text})${after}; try again`,
    )
  if (code.startsWith('28'))
    return new MemError(
      'io_error',
      `PostgreSQL at ${where} refused the login (${text}); check the user and password in MEM_STORE, PGPASSWORD or ~/.pgpass`,
    )
  if (code === '40001' || code === '40P01')
    return new MemError('io_error', `PostgreSQL at ${where} broke off a transaction (${text})${after}; try again`)
  return new MemError('io_error', `PostgreSQL at ${where} failed: ${text} (SQLSTATE ${code})${after}`)
}

/** What a failed connection means, for the codes describeErrno has no words for. */
const SOCKET_WORDS: Record<string, string> = {
  ECONNREFUSED: 'nothing listens there (ECONNREFUSED)',
  ENOENT: 'no server socket there (ENOENT)',
  ENOTFOUND: 'the host name is not known (ENOTFOUND)',
  EAI_AGAIN: 'the host name could not be looked up (EAI_AGAIN)',
  ETIMEDOUT: 'it did not answer in time (ETIMEDOUT)',
  ECONNRESET: 'the connection was reset (ECONNRESET)',
  EHOSTUNREACH: 'the host cannot be reached (EHOSTUNREACH)',
  EPIPE: 'the connection was closed (EPIPE)',
}

function outcomeWords(outcome: Outcome): string {
  if (outcome === 'none') return '; nothing was read or saved'
  if (outcome === 'nothing saved') return '; nothing was saved'
  if (outcome === 'unknown')
    return '; the connection was lost while the change was being committed, so it may or may not be saved: look (mem list, mem history) before trying again'
  return ''
}
