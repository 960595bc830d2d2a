import {MemCommand} from '../cli/base-command.js'
import {agentFlagFor} from '../cli/flag-spec.js'
import {oclifFlags} from '../cli/oclif-flags.js'
import {writeLinesToStdout} from '../cli/stdout-writer.js'
import {memExport} from '../transfer/export.js'

export default class Export extends MemCommand {
  static override summary = 'Write facts (with their history) and checkpoints as JSON Lines.'
  static override description =
    'One agent (--agent, else $MEM_AGENT, else "default") or every agent (--all), to stdout or to a file (-o). ' +
    'The format is versioned and documented in docs/export-format.md; "mem import" reads it back. ' +
    'With -o, a summary is printed (as JSON with --json); on stdout only the lines are written.'
  static override examples = [
    '<%= config.bin %> export --agent alice > alice.jsonl',
    '<%= config.bin %> export --all -o backup.jsonl',
    '<%= config.bin %> export --all -o backup.jsonl --json | jq .facts',
    '<%= config.bin %> export | jq -c \'select(.type == "fact" and .deleted_at == null)\'',
  ]
  static override flags = oclifFlags({
    ...agentFlagFor('Agent to export [default: $MEM_AGENT, else "default"].', {exclusive: ['all']}),
    all: {kind: 'boolean', description: 'Export every agent in the store.', exclusive: ['agent']},
    output: {
      kind: 'string',
      char: 'o',
      description:
        'Write to this file instead of stdout: a regular file is replaced whole (created 0600), a device or FIFO is written in place, a symbolic link to a file is refused; "-" is stdout.',
      helpValue: 'FILE',
    },
  })

  async run(): Promise<unknown> {
    const {flags} = await this.parse(Export)
    const file = flags.output === '-' ? undefined : flags.output
    const ctx = {...this.context(flags.agent), memVersion: this.config.version, stdout: writeLinesToStdout}
    // Lines printed to a terminal and a bar on the same screen would garble each other.
    const bar = file !== undefined || !process.stdout.isTTY
    return this.runWithProgress(memExport, ctx, {agent_id: flags.agent, all: flags.all, file}, bar)
  }
}
