import {Flags} from '@oclif/core'

import {MemCommand} from '../../cli/base-command.js'
import {MemError} from '../../errors.js'
import {CLIENT_IDS, CLIENTS} from '../../clients/clients.js'
import {checkServerUrl, remoteProse, remoteSnippet} from '../../clients/remote.js'
import {setupFlags} from '../../clients/setup-flags.js'
import {snippetFor, snippetProse} from '../../clients/snippet.js'

export default class McpConfig extends MemCommand {
  static override summary = 'Print the config snippet that adds mem to an MCP client.'
  static override description =
    'Prints the JSON to merge into the client\'s config file, and the file\'s usual place on this system; for Claude Code also the "claude mcp add" line. ' +
    'Without --client, prints it for every known client. The entry starts node and mem by absolute path (desktop apps often lack your shell\'s PATH); --on-path writes plain "mem". ' +
    'When MEM_HOME is set, the entry passes it on so the server uses the same store. "mem mcp install" writes it for you. ' +
    'With --http, prints instead the entry for a running "mem mcp serve --http": its URL and an Authorization header, or for Claude Desktop an mcp-remote bridge (see docs/http.md).'
  static override examples = [
    '<%= config.bin %> mcp config --client claude-desktop',
    '<%= config.bin %> mcp config --client claude-code --agent work',
    '<%= config.bin %> mcp config --client vscode --workspace . --on-path',
    "<%= config.bin %> mcp config --client cursor --json | jq '.clients[0].snippet'",
    '<%= config.bin %> mcp config --http --client claude-code --url https://mem.example/mcp',
  ]
  static override flags = {
    client: Flags.string({char: 'c', description: 'The MCP client [default: all of them].', options: [...CLIENT_IDS]}),
    ...setupFlags,
    http: Flags.boolean({
      description: 'Print the entry for a running "mem mcp serve --http" instead of a stdio server.',
      helpGroup: 'HTTP',
    }),
    url: Flags.string({
      description: "The server's endpoint, with --http [default: http://127.0.0.1:7411/mcp].",
      helpValue: 'URL',
      helpGroup: 'HTTP',
    }),
    token: Flags.string({
      description: 'Put this token in the entry, with --http [default: a placeholder to replace].',
      helpValue: 'TOKEN',
      helpGroup: 'HTTP',
    }),
  }

  async run(): Promise<unknown> {
    const {flags} = await this.parse(McpConfig)
    const ids =
      flags.client === undefined
        ? CLIENT_IDS.filter((id) => flags.workspace === undefined || CLIENTS[id].workspaceConfig)
        : [flags.client as (typeof CLIENT_IDS)[number]]
    const misplaced = flags.http
      ? (['agent', 'on-path', 'workspace', 'config-file'] as const).filter(
          (f) => flags[f] !== undefined && flags[f] !== false,
        )
      : (['url', 'token'] as const).filter((f) => flags[f] !== undefined)
    if (misplaced.length > 0) {
      const list = misplaced.map((f) => `--${f}`).join(', ')
      const one = misplaced.length === 1
      throw new MemError(
        'invalid_input',
        flags.http
          ? `${list} ${one ? 'describes' : 'describe'} a stdio server; leave ${one ? 'it' : 'them'} out with --http (the token decides the agents)`
          : `${list} ${one ? 'applies' : 'apply'} only with --http`,
      )
    }
    if (flags.http) {
      const url = checkServerUrl(flags.url ?? 'http://127.0.0.1:7411/mcp')
      const remote = {clients: ids.map((id) => remoteSnippet(id, url, flags.token))}
      this.print(this.jsonMode ? JSON.stringify(remote) : remote.clients.map(remoteProse).join('\n\n'))
      return remote
    }
    const options = {
      agent: flags.agent,
      onPath: flags['on-path'],
      configFile: flags['config-file'],
      workspace: flags.workspace,
      root: this.config.root,
    }
    const payload = {clients: ids.map((id) => snippetFor(CLIENTS[id], options))}
    this.print(this.jsonMode ? JSON.stringify(payload) : payload.clients.map(snippetProse).join('\n\n'))
    return payload
  }
}
