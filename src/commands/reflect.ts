import {Args, Flags} from '@oclif/core'

import {MemCommand, agentFlag} from '../cli/base-command.js'
import {memoryReflect} from '../ops/index.js'

export default class Reflect extends MemCommand {
  static override summary = 'Add, update, delete or merge facts.'
  static override description = 'Updated, merged and deleted facts stay in history and drop out of search.'
  static override examples = [
    '<%= config.bin %> reflect update --fact 01JDQ3N7X2C9V5K8M4T6R0B1AZ --content "Prefers bun"',
    '<%= config.bin %> reflect delete --fact 01JDQ3N7X2C9V5K8M4T6R0B1AZ --reason "no longer true"',
    '<%= config.bin %> reflect merge --fact 01JDQ3N7X2C9V5K8M4T6R0B1AZ --fact 01JDQ3P0A7Z3Y1X9W5V2T8S4RQ --content "Uses bun for every project"',
    '<%= config.bin %> reflect add --content "Deploys happen on Tuesdays"',
  ]
  static override args = {
    action: Args.string({description: 'add, update, delete or merge', required: true}),
  }
  static override fieldWords = {fact_id: '--fact', fact_ids: '--fact (twice or more)', tags: '--tag'}
  static override flags = {
    ...agentFlag,
    fact: Flags.string({
      char: 'f',
      description: 'The fact id to update or delete; repeat it for merge.',
      multiple: true,
      multipleNonGreedy: true,
      helpValue: 'FACT_ID',
    }),
    content: Flags.string({char: 'c', description: 'The new text, for add, update and merge.'}),
    tag: Flags.string({
      char: 't',
      description: 'Tags of the new fact [default: those of the facts it replaces].',
      multiple: true,
      multipleNonGreedy: true,
    }),
    thread: Flags.string({
      description: 'The conversation the new fact is a turn of [default: the thread the replaced facts share].',
      helpValue: 'THREAD',
    }),
    reason: Flags.string({char: 'r', description: 'Why, kept with the history.'}),
  }

  async run(): Promise<unknown> {
    const {args, flags} = await this.parse(Reflect)
    const facts = flags.fact ?? []
    return this.runOp(
      memoryReflect,
      {
        agent_id: flags.agent,
        action: args.action,
        fact_id: facts.length === 1 ? facts[0] : undefined,
        fact_ids: facts.length > 1 ? facts : undefined,
        content: flags.content,
        tags: flags.tag,
        thread: flags.thread,
        reason: flags.reason,
      },
      flags.agent,
    )
  }
}
