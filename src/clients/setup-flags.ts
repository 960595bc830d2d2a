import {Flags} from '@oclif/core'

/** The flags `mem mcp config` and `mem mcp install` share. */
export const setupFlags = {
  agent: Flags.string({
    char: 'a',
    description:
      'Agent the server uses when a tool call names none [default: the server\'s $MEM_AGENT, else "default"].',
    helpValue: 'ID',
  }),
  'on-path': Flags.boolean({
    description: 'Start "mem" from the client\'s PATH instead of absolute paths of node and mem.',
  }),
  workspace: Flags.string({
    description: 'Use the project-level file in this folder (.vscode/mcp.json, .cursor/mcp.json, .mcp.json).',
    helpValue: 'DIR',
  }),
  'config-file': Flags.string({
    description: "Use this config file instead of the client's usual one.",
    helpValue: 'FILE',
  }),
}
