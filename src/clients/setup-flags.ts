import {agentFlagFor, type FlagSpecs} from '../cli/flag-spec.js'
import {CLIENT_IDS} from './clients.js'

/** The flags `mem mcp config` and `mem mcp install` share. */
export const setupFlags = {
  ...agentFlagFor(
    'Agent the server uses when a tool call names none [default: the server\'s $MEM_AGENT, else "default"].',
  ),
  'on-path': {
    kind: 'boolean',
    description: 'Start "mem" from the client\'s PATH instead of absolute paths of node and mem.',
  },
  workspace: {
    kind: 'string',
    description: 'Use the project-level file in this folder (.vscode/mcp.json, .cursor/mcp.json, .mcp.json).',
    helpValue: 'DIR',
  },
  'config-file': {
    kind: 'string',
    description: "Use this config file instead of the client's usual one.",
    helpValue: 'FILE',
  },
} as const satisfies FlagSpecs

/** `--client`: one of the clients mem knows; `mem mcp config` defaults to all of them, `install` needs one. */
export function clientFlag(description: string, required: boolean) {
  return {
    client: {kind: 'string', char: 'c', description, options: CLIENT_IDS, ...(required ? {required} : {})},
  } as const satisfies FlagSpecs
}
