import type {Hook} from '@oclif/core'

import {reportFailure} from '../cli/output.js'
import {usageError} from '../cli/usage-error.js'
import {MemError} from '../errors.js'
import {closest} from './closest.js'

/**
 * A word that is not a mem command: say so, suggest the nearest command, and fail as a usage
 * error (exit 2). It never prompts, at a terminal or not, so a typo cannot run a command nobody
 * typed and a script gets the same answer a person does.
 *
 * oclif also lands here when a command that takes no argument is given one ("mem export
 * backup.jsonl"): it reads the extra word as part of the command's name. That is an unexpected
 * argument, and is said in the words oclif uses when the same word follows a flag.
 */
const notFound: Hook.CommandNotFound = async function ({id: given, argv, config}) {
  // oclif joins every word with ":" ("sarch:deploy"); the command is the first word, or two under a topic.
  const parts = given.split(':')
  const ids = config.commands.filter((c) => !c.hidden).flatMap((c) => [c.id, ...c.aliases])
  const json = (argv ?? []).includes('--json')
  process.exitCode = await reportFailure(
    extraArgument(parts, ids) ?? new MemError('invalid_input', unknown(parts, ids, config)),
    json,
  )
}

/** "Unexpected argument: …", worded as oclif's own, when the first words name a command. */
function extraArgument(parts: string[], ids: string[]): MemError | undefined {
  for (let n = parts.length - 1; n >= 1; n--) {
    const command = parts.slice(0, n).join(':')
    if (ids.includes(command)) return usageError(new Error(`Unexpected argument: ${parts[n]}`), command)
  }
  return undefined
}

function unknown(parts: string[], ids: string[], config: Parameters<Hook.CommandNotFound>[0]['config']): string {
  const id = parts.slice(0, config.findTopic(parts[0]!) ? 2 : 1).join(':')
  const typed = id.replaceAll(':', ' ')
  const nearest = id.startsWith('-') ? undefined : closest(id, ids)
  const what = id.startsWith('-') ? `${typed} is not a mem command or option.` : `${typed} is not a mem command.`
  const hint = nearest === undefined ? '' : ` Did you mean "mem ${nearest.replaceAll(':', ' ')}"?`
  return `${what}${hint} Run "mem help" for the list of commands.`
}

export default notFound
