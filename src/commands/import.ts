import {Args} from '@oclif/core'

import {MemCommand} from '../cli/base-command.js'
import {agentFlagFor, dryRunFlag} from '../cli/flag-spec.js'
import {boundHeapGrowth} from '../cli/heap-growth.js'
import {oclifFlags} from '../cli/oclif-flags.js'
import {memImport} from '../transfer/import.js'

export default class Import extends MemCommand {
  static override summary =
    "Add facts and checkpoints from a mem export, a transcript, an MCP memory file, or ChatGPT's or Claude's conversations.json."
  static override description =
    'Reads a "mem export" file, a conversation transcript (JSON Lines of turns: conversation, speaker, text, time), the memory.jsonl of the official MCP memory server (@modelcontextprotocol/server-memory), ' +
    "or the conversations.json of ChatGPT's or Claude's data export (each message becomes a turn of its conversation). " +
    'Every line is checked before anything is written; if any line is wrong, nothing is imported (exit 2) unless --skip-invalid is given. ' +
    'A line that is not valid UTF-8 is wrong too: save the file as UTF-8, or give --replace-invalid-utf8 to store U+FFFD (\ufffd) in place of each bad byte. ' +
    'The file is read one line at a time, so its size does not matter; a line longer than 4 MiB (or a conversation longer than 32 MiB) is refused. ' +
    'Ids and times from the file are kept; records already present are skipped. ' +
    'Records go to the agent each line names; lines of the memory server, and turns that name none, go to --agent, else $MEM_AGENT, else "default". ' +
    'Each turn becomes a fact "speaker: text" of the conversation\'s thread, at the turn\'s time. ' +
    'See docs/export-format.md for the transcript lines, the chat exports, and how entities, observations and relations become facts. ' +
    'Under --json the rejected lines are in "rejected" of the report, or of the error object when nothing was imported: (.error // .).rejected lists them either way.'
  static override examples = [
    '<%= config.bin %> import backup.jsonl',
    '<%= config.bin %> import backup.jsonl --dry-run',
    '<%= config.bin %> import memory.jsonl --agent claude',
    '<%= config.bin %> import chat-transcript.jsonl --agent alice',
    '<%= config.bin %> import conversations.json --agent me',
    '<%= config.bin %> export --agent alice | <%= config.bin %> import - --agent bob',
    '<%= config.bin %> import backup.jsonl --dry-run --json | jq -r \'(.error // .).rejected[]? | "line \\(.line): \\(.message)"\'',
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
    'replace-invalid-utf8': {
      kind: 'boolean',
      description:
        'Import lines that are not valid UTF-8, with U+FFFD (\ufffd) in place of each bad byte; the report lists them.',
    },
  })

  async run(): Promise<unknown> {
    const {args, flags} = await this.parse(Import)
    boundHeapGrowth()
    return this.runWithProgress(memImport, this.context(flags.agent), {
      file: args.file,
      agent_id: flags.agent,
      dry_run: flags['dry-run'],
      skip_invalid: flags['skip-invalid'],
      replace_invalid_utf8: flags['replace-invalid-utf8'],
    })
  }
}
