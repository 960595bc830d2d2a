import {Flags} from '@oclif/core'

import {MemCommand, agentFlag} from '../cli/base-command.js'
import {joinWords} from '../cli/input.js'
import {memorySearch} from '../ops/index.js'

export default class Search extends MemCommand {
  static override summary = 'Find facts by relevance.'
  static override description = 'Ranks an agent\'s live facts against the query (BM25 with stemming) and prints the best. Quotes around the query are optional.'
  static override examples = [
    '<%= config.bin %> search "package manager" --agent alice',
    '<%= config.bin %> search deploy steps --tag ops --limit 3',
    '<%= config.bin %> search "package manager" --json | jq -r \'.facts[].content\'',
  ]
  static override strict = false
  static override args = {}
  static override flags = {
    ...agentFlag,
    limit: Flags.integer({char: 'n', description: 'Most facts to return (1-100).', default: 10}),
    tag: Flags.string({char: 't', description: 'Only facts with this tag (repeat for several; all must match).', multiple: true}),
  }

  async run(): Promise<unknown> {
    const {argv, flags} = await this.parse(Search)
    const query = joinWords(argv as string[]) ?? ''
    return this.runOp(memorySearch, {agent_id: flags.agent, query, limit: flags.limit, tags: flags.tag}, flags.agent)
  }
}
