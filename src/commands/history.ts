import {Args} from '@oclif/core'

import {MemCommand, agentFlag} from '../cli/base-command.js'
import {factHistory} from '../ops/index.js'

export default class History extends MemCommand {
  static override summary = 'Show every version of a fact: what it said, when, and what replaced it.'
  static override description = 'Works with any version of the fact: the current one, an older one, or a deleted one.'
  static override examples = ['<%= config.bin %> history 01JDQ3N7X2C9V5K8M4T6R0B1AZ --agent alice']
  static override fieldWords = {fact_id: 'FACT_ID'}
  static override args = {
    fact_id: Args.string({description: 'The id of any version of the fact.', required: true}),
  }
  static override flags = {...agentFlag}

  async run(): Promise<unknown> {
    const {args, flags} = await this.parse(History)
    return this.runOp(factHistory, {agent_id: flags.agent, fact_id: args.fact_id}, flags.agent)
  }
}
