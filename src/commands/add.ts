import {Flags} from '@oclif/core'

import {MemCommand, agentFlag} from '../cli/base-command.js'
import {joinWords, readStdin} from '../cli/input.js'
import {memoryAdd} from '../ops/index.js'

export default class Add extends MemCommand {
  static override summary = 'Remember a fact.'
  static override description = 'Stores one fact for an agent. The text comes from the arguments, or from stdin when none are given.'
  static override examples = [
    '<%= config.bin %> add "Prefers pnpm as package manager" --agent alice --tag tooling',
    'echo "The staging database is read-only on Fridays" | <%= config.bin %> add --tag ops',
  ]
  static override strict = false
  static override flags = {
    ...agentFlag,
    tag: Flags.string({char: 't', description: 'Tag the fact (repeat for several).', multiple: true}),
  }

  async run(): Promise<unknown> {
    const {argv, flags} = await this.parse(Add)
    const content = joinWords(argv as string[]) ?? (await readStdin())?.trim() ?? ''
    return this.runOp(memoryAdd, {agent_id: flags.agent, content, tags: flags.tag}, flags.agent)
  }
}
