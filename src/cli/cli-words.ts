import {FieldError, MemError} from '../errors.js'
import type {FlagSpecs} from './flag-spec.js'

/** How a command names each input field it fills: `fact_id` → `--fact`, `query` → "the search words". */
export type FieldWords = Readonly<Record<string, string>>

/** The command a person types for each tool, for messages that point at one ("as returned by checkpoint_save"). */
const COMMAND_OF_TOOL: Readonly<Record<string, string>> = {
  memory_search: 'mem search',
  memory_add: 'mem add',
  memory_reflect: 'mem reflect',
  checkpoint_save: 'mem save',
  checkpoint_resume: 'mem resume',
  fact_list: 'mem list',
  fact_history: 'mem history',
  agent_list: 'mem agents',
  checkpoint_list: 'mem checkpoints',
}

/**
 * The field words of a command's flags: each flag fills the field of its name (dashes as
 * underscores) unless its spec names another (`--agent` fills `agent_id`). `extra` adds the
 * fields a command fills from its words or arguments, or from a flag of oclif's own.
 */
export function fieldWordsOf(flags: FlagSpecs | readonly string[], extra: FieldWords = {}): FieldWords {
  const entries = Array.isArray(flags)
    ? flags.map((name) => [name.replaceAll('-', '_'), `--${name}`])
    : Object.entries(flags as FlagSpecs).flatMap(([name, spec]) =>
        [spec.field ?? name.replaceAll('-', '_')].flat().map((field) => [field, `--${name}`]),
      )
  return {...Object.fromEntries(entries), ...extra}
}

/**
 * An error that names input fields (an input error, or a not-found one pointing at agent_id) in
 * the words of the command line: its field names become the flags that fill them, and tool names
 * the commands. Only the operation's own field names are renamed, so a flag named like a plain
 * word (`--fact`) never rewrites "fact id". Any other error is left as it is.
 */
export function inCliWords(error: unknown, words: FieldWords): unknown {
  if (!(error instanceof FieldError)) return error
  const fields = Object.fromEntries(
    error.fields.flatMap((field) => (words[field] === undefined ? [] : [[field, words[field]]])),
  )
  let message = error.message.replaceAll(
    new RegExp(`(?<![\\w-])(${alternatives(COMMAND_OF_TOOL)})(?![\\w-])`, 'g'),
    (_all, name: string) => COMMAND_OF_TOOL[name]!,
  )
  if (Object.keys(fields).length > 0) {
    // Only where a message names a field ("tags.0: …", "query is required", "needs fact_id and content",
    // "must be after since", "add agent_id"),
    // so the same word in prose ("at most 32 tags") stays a word. The index of a dot path says nothing at the CLI.
    const named = new RegExp(
      `(?<![\\w-])(${alternatives(fields)})(?:\\.\\d+)*(?:(:)|(?= is required| must be))|(?<=needs (?:[\\w-]+ and )*|must be (?:before|after) |; add )(${alternatives(fields)})(?![\\w-])`,
      'g',
    )
    message = message.replaceAll(
      named,
      (_all, a: string | undefined, colon: string | undefined, b: string | undefined) => {
        const word = fields[(a ?? b)!]!
        // A flag or argument is a label ("--tag: …"); words a command fills are said in a sentence ("the search words must …").
        return colon === undefined || isWords(word) ? word : `${word}${colon}`
      },
    )
  }
  return new MemError(error.code, message, error.details)
}

/** "the search words", as against "--tag" or "FACT_ID". */
function isWords(word: string): boolean {
  return /^[a-z]/.test(word)
}

function alternatives(names: FieldWords): string {
  return Object.keys(names)
    .sort((a, b) => b.length - a.length)
    .map((name) => name.replaceAll(/[^\w]/g, '\\$&'))
    .join('|')
}
