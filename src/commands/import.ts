import {Args} from '@oclif/core'

import {MemCommand} from '../cli/base-command.js'
import {agentFlagFor, dryRunFlag} from '../cli/flag-spec.js'
import {readStdin, readTextFile} from '../cli/input.js'
import {oclifFlags} from '../cli/oclif-flags.js'
import {MemError} from '../errors.js'
import {memImport} from '../transfer/import.js'

export default class Import extends MemCommand {
  static override summary = 'Add facts and checkpoints from a JSON Lines file.'
  static override description =
    'Reads a "mem export" file, a conversation transcript (JSON Lines of turns: conversation, speaker, text, time), or the memory.jsonl of the official MCP memory server (@modelcontextprotocol/server-memory). ' +
    'Every line is checked before anything is written; if any line is wrong, nothing is imported (exit 2) unless --skip-invalid is given. ' +
    'Ids and times from the file are kept; records already present are skipped. ' +
    'Records go to the agent each line names; lines of the memory server, and turns that name none, go to --agent, else $MEM_AGENT, else "default". ' +
    'Each turn becomes a fact "speaker: text" of the conversation\'s thread, at the turn\'s time. ' +
    'See docs/export-format.md for the transcript lines and for how entities, observations and relations become facts.'
  static override examples = [
    '<%= config.bin %> import backup.jsonl',
    '<%= config.bin %> import backup.jsonl --dry-run',
    '<%= config.bin %> import memory.jsonl --agent claude',
    '<%= config.bin %> import chat-transcript.jsonl --agent alice',
    '<%= config.bin %> export --agent alice | <%= config.bin %> import - --agent bob',
    '<%= config.bin %> import backup.jsonl --json | jq \'.rejected[] | "line \\(.line): \\(.message)"\'',
  ]
  static override args = {
    file: Args.string({description: 'The file to read, or - for stdin.', required: true}),
  }
  static override flags = oclifFlags({
    ...agentFlagFor(
      'Put every record into this agent (memory-server lines and turns that name none: [default: $MEM_AGENT, else "default"]).',
    ),
    ...dryRunFlag('Check and report what would be imported; change nothing.'),
    'skip-invalid': {
      kind: 'boolean',
      description: 'Import the valid lines even if some are rejected (they are still reported).',
    },
  })

  async run(): Promise<unknown> {
    const {args, flags} = await this.parse(Import)
    const text = args.file === '-' ? await readStdin() : readTextFile(args.file, 'the import')
    if (text === undefined)
      throw new MemError('invalid_input', 'no input on stdin: pipe a file into "mem import -" or give a file name')
    return this.runWithProgress(memImport, this.context(flags.agent), {
      text,
      agent_id: flags.agent,
      dry_run: flags['dry-run'],
      skip_invalid: flags['skip-invalid'],
    })
  }
}
