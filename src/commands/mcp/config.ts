import {MemCommand} from '../../cli/base-command.js'
import {oclifFlags} from '../../cli/oclif-flags.js'
import {mcpConfig} from '../../clients/mcp-config.js'
import {clientFlag, setupFlags} from '../../clients/setup-flags.js'
import {noteLeftOut} from '../../clients/store-env.js'

export default class McpConfig extends MemCommand {
  static override summary = 'Print the config snippet that adds mem to an MCP client.'
  static override description =
    'Prints the JSON to merge into the client\'s config file, and the file\'s usual place on this system; for Claude Code also the "claude mcp add" line. ' +
    'Without --client, prints it for every known client. The entry starts node and mem by absolute path (desktop apps often lack your shell\'s PATH); --on-path writes plain "mem". ' +
    'When MEM_HOME is set, the entry passes it on so the server uses the same store; so does MEM_STORE, without its password (the server finds it in ~/.pgpass or PGPASSWORD; a note on stderr says so). "mem mcp install" writes it for you. ' +
    'With --http, prints instead the entry for a running "mem mcp serve --http": its URL and an Authorization header, or for Claude Desktop an mcp-remote bridge (see docs/http.md).'
  static override examples = [
    '<%= config.bin %> mcp config --client claude-desktop',
    '<%= config.bin %> mcp config --client claude-code --agent work',
    '<%= config.bin %> mcp config --client vscode --workspace . --on-path',
    "<%= config.bin %> mcp config --client cursor --json | jq '.clients[0].snippet'",
    '<%= config.bin %> mcp config --http --client claude-code --url https://mem.example/mcp',
  ]
  static override flags = oclifFlags({
    ...clientFlag('The MCP client [default: all of them].', false),
    ...setupFlags,
    http: {
      kind: 'boolean',
      description: 'Print the entry for a running "mem mcp serve --http" instead of a stdio server.',
      helpGroup: 'HTTP',
    },
    url: {
      kind: 'string',
      description: "The server's endpoint, with --http [default: http://127.0.0.1:7411/mcp].",
      helpValue: 'URL',
      helpGroup: 'HTTP',
    },
    token: {
      kind: 'string',
      description: 'Put this token in the entry, with --http [default: a placeholder to replace].',
      helpValue: 'TOKEN',
      helpGroup: 'HTTP',
    },
  })

  async run(): Promise<unknown> {
    const {flags} = await this.parse(McpConfig)
    const payload = await this.runIn(
      mcpConfig,
      {root: this.config.root},
      {
        client: flags.client,
        agent_id: flags.agent,
        on_path: flags['on-path'],
        workspace: flags.workspace,
        config_file: flags['config-file'],
        http: flags.http,
        url: flags.url,
        token: flags.token,
      },
    )
    noteLeftOut(payload.left_out)
    return payload
  }
}
