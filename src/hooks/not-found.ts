import type {Hook} from '@oclif/core'

import {reportFailure} from '../cli/output.js'
import {MemError} from '../errors.js'
import {closest} from './closest.js'

/**
 * A word that is not a mem command: say so, suggest the nearest command, and fail as a usage
 * error (exit 2). It never prompts, at a terminal or not, so a typo cannot run a command nobody
 * typed and a script gets the same answer a person does.
 */
const notFound: Hook.CommandNotFound = async function ({id: given, argv, config}) {
  // oclif joins every word with ":" ("sarch:deploy"); the command is the first word, or two under a topic.
  const parts = given.split(':')
  const id = parts.slice(0, config.findTopic(parts[0]!) ? 2 : 1).join(':')
  const typed = id.replaceAll(':', ' ')
  const ids = config.commands.filter((c) => !c.hidden).flatMap((c) => [c.id, ...c.aliases])
  const nearest = id.startsWith('-') ? undefined : closest(id, ids)
  const what = id.startsWith('-') ? `${typed} is not a mem command or option.` : `${typed} is not a mem command.`
  const hint = nearest === undefined ? '' : ` Did you mean "mem ${nearest.replaceAll(':', ' ')}"?`
  const json = (argv ?? []).includes('--json')
  process.exitCode = reportFailure(
    new MemError('invalid_input', `${what}${hint} Run "mem help" for the list of commands.`),
    json,
  )
}

export default notFound
