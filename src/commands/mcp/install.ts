import {MemCommand} from '../../cli/base-command.js'
import {dryRunFlag} from '../../cli/flag-spec.js'
import {oclifFlags} from '../../cli/oclif-flags.js'
import {mcpInstall} from '../../clients/mcp-install.js'
import {clientFlag, setupFlags} from '../../clients/setup-flags.js'
import {noteLeftOut} from '../../clients/store-env.js'

export default class McpInstall extends MemCommand {
  static override summary = "Add mem to an MCP client's config file."
  static override description =
    'Merges the entry "mem mcp config" prints into the client\'s config file, keeping everything else in it. ' +
    'The old file is copied beside it first (<file>.mem-backup-<time>); a new file is created private (0600). ' +
    'An existing "mem" entry is replaced. A file that is not plain JSON (e.g. with comments) is left untouched. --dry-run shows the diff and writes nothing. ' +
    'MEM_HOME and MEM_STORE are passed on as "mem mcp config" describes: never a password.'
  static override examples = [
    '<%= config.bin %> mcp install --client claude-desktop',
    '<%= config.bin %> mcp install --client cursor --agent work --dry-run',
    '<%= config.bin %> mcp install --client vscode --workspace .',
    '<%= config.bin %> mcp install --client claude-code --config-file ./test-claude.json --json',
  ]
  static override flags = oclifFlags({
    ...clientFlag('The MCP client.', true),
    ...setupFlags,
    ...dryRunFlag('Show the change as a diff; write nothing.'),
  })

  async run(): Promise<unknown> {
    const {flags} = await this.parse(McpInstall)
    const payload = await this.runIn(
      mcpInstall,
      {root: this.config.root},
      {
        client: flags.client,
        agent_id: flags.agent,
        on_path: flags['on-path'],
        workspace: flags.workspace,
        config_file: flags['config-file'],
        dry_run: flags['dry-run'],
      },
    )
    noteLeftOut(payload.left_out)
    return payload
  }
}
