import {factList} from '../../ops/list.js'
import {agentFlag, defineCommandSpec} from '../flag-spec.js'
import {resolveTimePhrase} from '../time-phrases.js'

/** `mem list`: flags only. */
export const listSpec = defineCommandSpec({
  operation: factList,
  words: false,
  flags: {
    ...agentFlag,
    limit: {kind: 'integer', char: 'n', description: 'Most facts to show (1-10000).', default: 20},
    tag: {
      kind: 'string',
      char: 't',
      description: 'Only facts with this tag (repeat for several; all must match).',
      multiple: true,
      field: 'tags',
    },
    since: {
      kind: 'string',
      description: 'Only facts saved at or after this time (ISO date or phrase).',
      helpValue: 'WHEN',
    },
    until: {kind: 'string', description: 'Only facts saved before this time (ISO date or phrase).', helpValue: 'WHEN'},
    all: {kind: 'boolean', description: 'Include superseded and deleted facts.'},
  },
  async input(_words, flags) {
    const since = await resolveTimePhrase(flags.since, '--since')
    const until = await resolveTimePhrase(flags.until, '--until')
    return {agent_id: flags.agent, limit: flags.limit, tags: flags.tag, since, until, all: flags.all}
  },
})
