import {MemCommand} from '../cli/base-command.js'
import {oclifFlags} from '../cli/oclif-flags.js'
import {searchSpec} from '../cli/specs/search.js'

export default class Search extends MemCommand {
  static override summary = 'Find facts by relevance.'
  static override description =
    "Ranks an agent's live facts against the query (BM25 with stemming) and prints the best. Quotes around the query are optional."
  static override examples = [
    '<%= config.bin %> search "package manager" --agent alice',
    '<%= config.bin %> search deploy steps --tag ops --limit 3',
    '<%= config.bin %> search standup --since "last week"',
    '<%= config.bin %> search "which editor does carol use" --explain',
    '<%= config.bin %> search "package manager" --json | jq -r \'.facts[].content\'',
  ]
  static override args = {}
  static override strict = !searchSpec.words
  static override flags = oclifFlags(searchSpec.flags)

  async run(): Promise<unknown> {
    return this.runSpec(searchSpec)
  }
}
