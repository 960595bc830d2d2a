import {MemCommand} from '../cli/base-command.js'
import {oclifFlags} from '../cli/oclif-flags.js'
import {listSpec} from '../cli/specs/list.js'

export default class List extends MemCommand {
  static override summary = "List an agent's facts, newest first."
  static override description =
    'Live facts by default; --all adds the versions that were replaced or deleted. --since and --until take ISO dates or phrases such as "yesterday", "last week" or "3 days ago".'
  static override examples = [
    '<%= config.bin %> list --agent alice',
    '<%= config.bin %> list --tag ops --since "last week"',
    '<%= config.bin %> list --all --limit 100 --json | jq -r \'.facts[] | select(.status == "deleted") | .id\'',
  ]
  static override strict = !listSpec.words
  static override flags = oclifFlags(listSpec.flags)

  async run(): Promise<unknown> {
    return this.runSpec(listSpec)
  }
}
