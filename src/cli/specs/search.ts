import {MemError} from '../../errors.js'
import {memorySearch} from '../../ops/search.js'
import {agentFlag, defineCommandSpec, factFilterFlags} from '../flag-spec.js'
import {joinWords} from '../input.js'
import {resolveTimePhrase} from '../time-phrases.js'

/** `mem search`: the words are the query. */
export const searchSpec = defineCommandSpec({
  operation: memorySearch,
  words: true,
  wordsFill: {query: 'the search words'},
  flags: {
    ...agentFlag,
    limit: {kind: 'integer', char: 'n', description: 'Most facts to return (1-100).', default: 10},
    tag: factFilterFlags.tag,
    since: {
      kind: 'string',
      description:
        'Only facts saved at or after this time: an ISO date or a phrase such as "yesterday", "last week", "3 days ago".',
      helpValue: 'WHEN',
    },
    until: factFilterFlags.until,
    explain: {kind: 'boolean', description: 'Under each fact, say which words of the query it matched and how.'},
  },
  async input(words, flags) {
    const query = joinWords(words) ?? ''
    if (query.trim() === '')
      throw new MemError(
        'invalid_input',
        'no words to search for: give them after the command (mem search deploy steps), quoted or not (mem search "deploy steps")',
      )
    const since = await resolveTimePhrase(flags.since, '--since')
    const until = await resolveTimePhrase(flags.until, '--until')
    return {
      agent_id: flags.agent,
      query,
      limit: flags.limit,
      tags: flags.tag,
      since,
      until,
      ...(flags.explain === true ? {explain: true} : {}),
    }
  },
})
