import {MemError} from '../errors.js'

/**
 * A command line oclif could not parse, as a usage error in one line: oclif's "Parsing --limit
 * \n\tExpected an integer…\nSee more help with --help" becomes "--limit: expected an integer…".
 */
export function usageError(error: Error, id: string | undefined): MemError {
  if (error instanceof MemError) return error
  const text = error.message
    .replace(/\nSee more help with --help$/, '')
    .replace(/^Parsing (--\S+) \n\t(\w)/, (_all, flag: string, first: string) => `${flag}: ${first.toLowerCase()}`)
    .replaceAll(/\s*\n\s*/g, ' ')
    .trim()
  const help = id === undefined ? 'mem --help' : `mem ${id.replaceAll(':', ' ')} --help`
  return new MemError('invalid_input', `${text} (see ${help})`)
}
