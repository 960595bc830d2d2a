import {MemCommand} from '../cli/base-command.js'
import {oclifFlags} from '../cli/oclif-flags.js'
import {addSpec} from '../cli/specs/add.js'

export default class Add extends MemCommand {
  static override summary = 'Remember a fact.'
  static override description =
    'Stores one fact for an agent. The text comes from the arguments, or from stdin when none are given.'
  static override examples = [
    '<%= config.bin %> add "Prefers pnpm as package manager" --agent alice --tag tooling',
    'echo "The staging database is read-only on Fridays" | <%= config.bin %> add --tag ops',
  ]
  static override strict = !addSpec.words
  static override flags = oclifFlags(addSpec.flags)

  async run(): Promise<unknown> {
    return this.runSpec(addSpec)
  }
}
