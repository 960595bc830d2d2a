import {homedir} from 'node:os'
import {join} from 'node:path'

import {MemError} from '../errors.js'
import type {Launch} from './launcher.js'

export const CLIENT_IDS = ['claude-desktop', 'claude-code', 'cursor', 'vscode'] as const
export type ClientId = (typeof CLIENT_IDS)[number]

/** What decides where a client keeps its config: read from the process, overridable in tests. */
export interface Environment {
  home: string
  platform: NodeJS.Platform
  appData?: string
  xdgConfigHome?: string
}

export function currentEnvironment(): Environment {
  return {
    home: homedir(),
    platform: process.platform,
    appData: process.env.APPDATA,
    xdgConfigHome: process.env.XDG_CONFIG_HOME,
  }
}

/** What mem knows about one MCP client: where its config lives and how it spells a server entry. */
export interface Client {
  id: ClientId
  name: string
  /** The key of the object that holds the servers by name. */
  serversKey: 'mcpServers' | 'servers'
  userConfig(env: Environment): string
  /** The project-level file, for clients that have one. */
  workspaceConfig?(dir: string): string
  entry(launch: Launch): Record<string, unknown>
  /** What to do after the file changed. */
  afterInstall: string
}

/** The per-user application-data folder: ~/Library/Application Support, %APPDATA%, or $XDG_CONFIG_HOME. */
function appDataDir(env: Environment): string {
  if (env.platform === 'darwin') return join(env.home, 'Library', 'Application Support')
  if (env.platform === 'win32') return env.appData ?? join(env.home, 'AppData', 'Roaming')
  return env.xdgConfigHome && env.xdgConfigHome.trim() !== '' ? env.xdgConfigHome : join(env.home, '.config')
}

const plainEntry = (launch: Launch): Record<string, unknown> => ({
  command: launch.command,
  args: launch.args,
  ...(launch.env ? {env: launch.env} : {}),
})
const stdioEntry = (launch: Launch): Record<string, unknown> => ({type: 'stdio', ...plainEntry(launch)})

export const CLIENTS: Record<ClientId, Client> = {
  'claude-desktop': {
    id: 'claude-desktop',
    name: 'Claude Desktop',
    serversKey: 'mcpServers',
    userConfig: (env) => join(appDataDir(env), 'Claude', 'claude_desktop_config.json'),
    entry: plainEntry,
    afterInstall: 'Quit and reopen Claude Desktop to load it.',
  },
  'claude-code': {
    id: 'claude-code',
    name: 'Claude Code',
    serversKey: 'mcpServers',
    userConfig: (env) => join(env.home, '.claude.json'),
    workspaceConfig: (dir) => join(dir, '.mcp.json'),
    entry: stdioEntry,
    afterInstall: 'Start a new Claude Code session; "/mcp" lists the server.',
  },
  cursor: {
    id: 'cursor',
    name: 'Cursor',
    serversKey: 'mcpServers',
    userConfig: (env) => join(env.home, '.cursor', 'mcp.json'),
    workspaceConfig: (dir) => join(dir, '.cursor', 'mcp.json'),
    entry: plainEntry,
    afterInstall: 'Cursor picks it up under Settings > MCP; restart Cursor if it does not appear.',
  },
  vscode: {
    id: 'vscode',
    name: 'VS Code',
    serversKey: 'servers',
    userConfig: (env) => join(appDataDir(env), 'Code', 'User', 'mcp.json'),
    workspaceConfig: (dir) => join(dir, '.vscode', 'mcp.json'),
    entry: stdioEntry,
    afterInstall: 'In VS Code, run "MCP: List Servers" and start mem (agent mode in Copilot Chat uses it).',
  },
}

/** The file to write: --config-file, else the workspace file (--workspace), else the user file. */
export function configFileOf(
  client: Client,
  options: {configFile?: string; workspace?: string; env: Environment},
): string {
  if (options.configFile !== undefined) return options.configFile
  if (options.workspace !== undefined) {
    if (!client.workspaceConfig)
      throw new MemError('invalid_input', `${client.name} has no per-project config file; leave out --workspace`)
    return client.workspaceConfig(options.workspace)
  }
  return client.userConfig(options.env)
}
