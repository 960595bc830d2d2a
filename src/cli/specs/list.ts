import {factList} from '../../ops/list.js'
import {agentFlag, defineCommandSpec, factFilterFlags} from '../flag-spec.js'
import {resolveTimePhrase} from '../time-phrases.js'

/** `mem list`: flags only. */
export const listSpec = defineCommandSpec({
  operation: factList,
  words: false,
  flags: {
    ...agentFlag,
    limit: {kind: 'integer', char: 'n', description: 'Most facts to show (1-10000).', default: 20},
    tag: factFilterFlags.tag,
    since: {
      kind: 'string',
      description: 'Only facts saved at or after this time (ISO date or phrase).',
      helpValue: 'WHEN',
    },
    until: factFilterFlags.until,
    all: {kind: 'boolean', description: 'Include superseded and deleted facts.'},
  },
  async input(_words, flags) {
    const since = await resolveTimePhrase(flags.since, '--since')
    const until = await resolveTimePhrase(flags.until, '--until')
    return {agent_id: flags.agent, limit: flags.limit, tags: flags.tag, since, until, all: flags.all}
  },
})
