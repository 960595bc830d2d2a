import {Flags} from '@oclif/core'

import {MemCommand} from '../../cli/base-command.js'
import {CLIENT_IDS, CLIENTS} from '../../clients/clients.js'
import {setupFlags} from '../../clients/setup-flags.js'
import {snippetFor, snippetProse} from '../../clients/snippet.js'

export default class McpConfig extends MemCommand {
  static override summary = 'Print the config snippet that adds mem to an MCP client.'
  static override description =
    'Prints the JSON to merge into the client\'s config file, and the file\'s usual place on this system; for Claude Code also the "claude mcp add" line. ' +
    'Without --client, prints it for every known client. The entry starts node and mem by absolute path (desktop apps often lack your shell\'s PATH); --on-path writes plain "mem". ' +
    'When MEM_HOME is set, the entry passes it on so the server uses the same store. "mem mcp install" writes it for you.'
  static override examples = [
    '<%= config.bin %> mcp config --client claude-desktop',
    '<%= config.bin %> mcp config --client claude-code --agent work',
    '<%= config.bin %> mcp config --client vscode --workspace . --on-path',
    '<%= config.bin %> mcp config --client cursor --json | jq \'.clients[0].snippet\'',
  ]
  static override flags = {
    client: Flags.string({char: 'c', description: 'The MCP client [default: all of them].', options: [...CLIENT_IDS]}),
    ...setupFlags,
  }

  async run(): Promise<unknown> {
    const {flags} = await this.parse(McpConfig)
    const ids = flags.client === undefined ? CLIENT_IDS.filter((id) => flags.workspace === undefined || CLIENTS[id].workspaceConfig) : [flags.client as (typeof CLIENT_IDS)[number]]
    const options = {agent: flags.agent, onPath: flags['on-path'], configFile: flags['config-file'], workspace: flags.workspace, root: this.config.root}
    const payload = {clients: ids.map((id) => snippetFor(CLIENTS[id], options))}
    this.print(this.jsonMode ? JSON.stringify(payload) : payload.clients.map(snippetProse).join('\n\n'))
    return payload
  }
}
