import {MemError} from '../errors.js'
import {unstyled} from './terminal-style.js'

/**
 * A command line oclif could not parse, as a usage error in one line: oclif's "Parsing --limit
 * \n\tExpected an integer…\nSee more help with --help" becomes "--limit: expected an integer…".
 */
export function usageError(error: Error, id: string | undefined): MemError {
  if (error instanceof MemError) return error
  const text = reasons(unstyled(error.message).replace(/\nSee more help with --help$/, ''))
    .replace(/^Parsing (--\S+) \n\t(\w)/, (_all, flag: string, first: string) => `${flag}: ${first.toLowerCase()}`)
    .replaceAll(/\s*\n\s*/g, ' ')
    .trim()
  const help = id === undefined ? 'mem --help' : `mem ${id.replaceAll(':', ' ')} --help`
  return new MemError('invalid_input', `${text} (see ${help})`)
}

/**
 * oclif's list of failed flag rules ("The following error occurred:\n  Missing required flag
 * to") as the reasons alone, one after another, with a missing flag named as it is typed.
 */
function reasons(message: string): string {
  const list = /^The following errors? occurred:\s*([\s\S]*)$/.exec(message)?.[1]
  if (list === undefined) return message
  return list
    .split(/\s*\n\s*/)
    .filter((reason) => reason !== '')
    .map((reason) => reason.replace(/^Missing required flag ([\w-]+)$/, '--$1 is required'))
    .join('; ')
}
