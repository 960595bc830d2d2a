import {resolve} from 'node:path'

import {Flags} from '@oclif/core'

import {MemCommand} from '../cli/base-command.js'
import {exportProse, planExport} from '../transfer/export.js'
import {writeLinesToStdout} from '../transfer/line-output.js'
import {writeLinesToPath} from '../transfer/output-file.js'
import {progressBar} from '../transfer/progress-bar.js'

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
  static override flags = {
    agent: Flags.string({
      char: 'a',
      description: 'Agent to export [default: $MEM_AGENT, else "default"].',
      helpValue: 'ID',
      exclusive: ['all'],
    }),
    all: Flags.boolean({description: 'Export every agent in the store.', exclusive: ['agent']}),
    output: Flags.string({
      char: 'o',
      description:
        'Write to this file instead of stdout: a regular file is replaced whole (created 0600), a device or FIFO is written in place, a symbolic link to a file is refused; "-" is stdout.',
      helpValue: 'FILE',
    }),
  }

  async run(): Promise<unknown> {
    const {flags} = await this.parse(Export)
    const plan = await planExport(
      this.context(flags.agent),
      {agent_id: flags.agent, all: flags.all},
      this.config.version,
    )
    // Lines printed to a terminal and a bar on the same screen would garble each other.
    const output = flags.output === '-' ? undefined : flags.output
    const bar = progressBar(!this.jsonMode && (output !== undefined || !process.stdout.isTTY))
    try {
      if (output === undefined) {
        await writeLinesToStdout(plan.lines(), plan.total, bar.onProgress)
        this.exitIfLeftOut(plan.summary.missing)
        return plan.summary
      }
      const file = resolve(output)
      writeLinesToPath(file, plan.lines(), plan.total, bar.onProgress)
      bar.stop()
      const summary = {...plan.summary, file}
      this.print(this.jsonMode ? JSON.stringify(summary) : exportProse(summary))
      this.exitIfLeftOut(summary.missing)
      return summary
    } finally {
      bar.stop()
    }
  }
}
