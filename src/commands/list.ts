import {Flags} from '@oclif/core'

import {MemCommand, agentFlag} from '../cli/base-command.js'
import {resolveTimePhrase} from '../cli/time-phrases.js'
import {factList} from '../ops/index.js'

export default class List extends MemCommand {
  static override summary = "List an agent's facts, newest first."
  static override description = 'Live facts by default; --all adds the versions that were replaced or deleted. --since and --until take ISO dates or phrases such as "yesterday", "last week" or "3 days ago".'
  static override examples = [
    '<%= config.bin %> list --agent alice',
    '<%= config.bin %> list --tag ops --since "last week"',
    '<%= config.bin %> list --all --limit 100 --json | jq -r \'.facts[] | select(.status == "deleted") | .id\'',
  ]
  static override flags = {
    ...agentFlag,
    limit: Flags.integer({char: 'n', description: 'Most facts to show (1-10000).', default: 20}),
    tag: Flags.string({char: 't', description: 'Only facts with this tag (repeat for several; all must match).', multiple: true}),
    since: Flags.string({description: 'Only facts saved at or after this time (ISO date or phrase).', helpValue: 'WHEN'}),
    until: Flags.string({description: 'Only facts saved before this time (ISO date or phrase).', helpValue: 'WHEN'}),
    all: Flags.boolean({description: 'Include superseded and deleted facts.'}),
  }

  async run(): Promise<unknown> {
    const {flags} = await this.parse(List)
    const since = await resolveTimePhrase(flags.since, '--since')
    const until = await resolveTimePhrase(flags.until, '--until')
    return this.runOp(factList, {agent_id: flags.agent, limit: flags.limit, tags: flags.tag, since, until, all: flags.all}, flags.agent)
  }
}
