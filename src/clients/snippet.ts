import {join, resolve} from 'node:path'

import {CLIENTS, configFileOf, currentEnvironment, type Client, type ClientId} from './clients.js'
import {claudeMcpAddLine, launchOf, type Launch} from './launcher.js'

/** The name mem's entry has in every client config. */
export const SERVER_NAME = 'mem'

export interface SetupOptions {
  agent?: string
  onPath: boolean
  configFile?: string
  workspace?: string
  /** mem's package root, where bin/run.js lives. */
  root: string
}

export interface ClientSnippet {
  client: ClientId
  name: string
  config_file: string
  servers_key: string
  /** The JSON to merge into the config file. */
  snippet: Record<string, Record<string, Record<string, unknown>>>
  /** For Claude Code: the `claude mcp add` line that does the same. */
  command_line?: string
}

export function launchFor(options: SetupOptions, storeEnv: Record<string, string>): Launch {
  return launchOf({
    onPath: options.onPath,
    agent: options.agent,
    nodePath: process.execPath,
    binPath: join(options.root, 'bin', 'run.js'),
    // Absolute: the client starts the server from a folder of its own, where a relative path means another store.
    memHome: process.env.MEM_HOME?.trim() ? resolve(process.env.MEM_HOME.trim()) : undefined,
    storeEnv,
  })
}

export function snippetFor(
  client: Client,
  options: SetupOptions,
  /** What passes this shell's PostgreSQL store on (store-env.ts); empty for the files. */
  storeEnv: Record<string, string>,
): ClientSnippet {
  const launch = launchFor(options, storeEnv)
  const absolute = (path: string | undefined): string | undefined => (path === undefined ? undefined : resolve(path))
  const file = configFileOf(client, {
    configFile: absolute(options.configFile),
    workspace: absolute(options.workspace),
    env: currentEnvironment(),
  })
  return {
    client: client.id,
    name: client.name,
    config_file: file,
    servers_key: client.serversKey,
    snippet: {[client.serversKey]: {[SERVER_NAME]: client.entry(launch)}},
    ...(client.id === 'claude-code'
      ? {command_line: claudeMcpAddLine(SERVER_NAME, launch, options.workspace === undefined ? 'user' : 'project')}
      : {}),
  }
}

export function snippetProse(s: ClientSnippet): string {
  const lines = [
    `${CLIENTS[s.client].name}: add this to ${s.config_file} (or run "mem mcp install --client ${s.client}"):`,
    JSON.stringify(s.snippet, null, 2),
  ]
  if (s.command_line) lines.push('Or run:', `  ${s.command_line}`)
  return lines.join('\n')
}
