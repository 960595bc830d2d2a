import {Flags} from '@oclif/core'

import {MemCommand} from '../../cli/base-command.js'
import {CLIENT_IDS, CLIENTS, type ClientId} from '../../clients/clients.js'
import {applyChange, planServerEntry} from '../../clients/config-file.js'
import {setupFlags} from '../../clients/setup-flags.js'
import {SERVER_NAME, snippetFor} from '../../clients/snippet.js'
import {unifiedDiff} from '../../clients/text-diff.js'

export default class McpInstall extends MemCommand {
  static override summary = "Add mem to an MCP client's config file."
  static override description =
    'Merges the entry "mem mcp config" prints into the client\'s config file, keeping everything else in it. ' +
    'The old file is copied beside it first (<file>.mem-backup-<time>); a new file is created private (0600). ' +
    'An existing "mem" entry is replaced. A file that is not plain JSON (e.g. with comments) is left untouched. --dry-run shows the diff and writes nothing.'
  static override examples = [
    '<%= config.bin %> mcp install --client claude-desktop',
    '<%= config.bin %> mcp install --client cursor --agent work --dry-run',
    '<%= config.bin %> mcp install --client vscode --workspace .',
    '<%= config.bin %> mcp install --client claude-code --config-file ./test-claude.json --json',
  ]
  static override flags = {
    client: Flags.string({char: 'c', description: 'The MCP client.', options: [...CLIENT_IDS], required: true}),
    ...setupFlags,
    'dry-run': Flags.boolean({description: 'Show the change as a diff; write nothing.'}),
  }

  async run(): Promise<unknown> {
    const {flags} = await this.parse(McpInstall)
    const client = CLIENTS[flags.client as ClientId]
    const snippet = snippetFor(client, {
      agent: flags.agent,
      onPath: flags['on-path'],
      configFile: flags['config-file'],
      workspace: flags.workspace,
      root: this.config.root,
    })
    const change = planServerEntry(
      snippet.config_file,
      client.serversKey,
      SERVER_NAME,
      snippet.snippet[client.serversKey]![SERVER_NAME]!,
    )
    const diff = unifiedDiff(change.before, change.after, change.file)
    const backup = flags['dry-run'] ? undefined : applyChange(change)
    const payload = {
      client: client.id,
      config_file: change.file,
      dry_run: flags['dry-run'] === true,
      changed: change.changed,
      created: change.created,
      replaced: change.replaced,
      ...(backup ? {backup} : {}),
      diff,
    }
    this.print(this.jsonMode ? JSON.stringify(payload) : installProse(payload, client.afterInstall))
    return payload
  }
}

function installProse(
  p: {
    config_file: string
    dry_run: boolean
    changed: boolean
    created: boolean
    replaced: boolean
    backup?: string
    diff: string
  },
  after: string,
): string {
  if (!p.changed) return `${p.config_file} already has this mem entry; nothing changed.`
  if (p.dry_run) return `${p.diff}\nDry run: ${p.config_file} was not changed.`
  const what = p.created
    ? `Created ${p.config_file} with the mem server`
    : `${p.replaced ? 'Replaced the mem server entry in' : 'Added the mem server to'} ${p.config_file} (backup: ${p.backup})`
  return `${what}.\n${after}`
}
