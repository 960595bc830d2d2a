import * as v from 'valibot'

import {MemError} from '../errors.js'
import {AgentId} from '../ops/fields.js'
import {defineOperation} from '../ops/operation.js'
import {CLIENT_IDS, CLIENTS} from './clients.js'
import {checkServerUrl, remoteProse, remoteSnippet} from './remote.js'
import {snippetFor, snippetProse} from './snippet.js'
import {storeEnvironment} from './store-env.js'

/** What setting up a client works on: mem's package root, where bin/run.js lives. */
export interface SetupContext {
  root: string
}

/** The client's config as JSON: servers key → server name → entry. */
const Snippet = v.record(v.string(), v.record(v.string(), v.record(v.string(), v.unknown())))

export const ClientSnippet = v.object({
  client: v.picklist(CLIENT_IDS),
  name: v.string(),
  config_file: v.string(),
  servers_key: v.string(),
  snippet: Snippet,
  /** For Claude Code: the `claude mcp add` line that does the same. */
  command_line: v.optional(v.string()),
})

export const RemoteSnippet = v.object({
  client: v.picklist(CLIENT_IDS),
  name: v.string(),
  servers_key: v.string(),
  /** How the client reaches the server: over HTTP itself, or through the mcp-remote bridge (stdio only). */
  via: v.picklist(['http', 'mcp-remote']),
  snippet: Snippet,
  command_line: v.optional(v.string()),
})

/** The input both `mem mcp config` and `mem mcp install` take to launch a stdio server. */
export const LaunchInput = {
  agent_id: v.optional(AgentId),
  on_path: v.optional(v.boolean(), false),
  workspace: v.optional(v.string()),
  config_file: v.optional(v.string()),
}

const DEFAULT_URL = 'http://127.0.0.1:7411/mcp'

/** `mem mcp config`: the entry that adds mem to each client, for a stdio server or (http) a running HTTP one. */
export const mcpConfig = defineOperation({
  tool: 'mcp_config',
  title: 'MCP client config',
  description: 'The config entry that adds mem to an MCP client, and where that client keeps its config file.',
  annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false},
  input: v.strictObject({
    client: v.optional(v.picklist(CLIENT_IDS)),
    ...LaunchInput,
    http: v.optional(v.boolean(), false),
    url: v.optional(v.string()),
    token: v.optional(v.string()),
  }),
  output: v.object({
    clients: v.array(v.union([ClientSnippet, RemoteSnippet])),
    /** Secrets of this shell's database connection the entries do not hold (store-env.ts); absent when none. */
    left_out: v.optional(v.array(v.string())),
  }),
  async handler({root}: SetupContext, input) {
    const ids =
      input.client === undefined
        ? CLIENT_IDS.filter((id) => input.workspace === undefined || CLIENTS[id].workspaceConfig)
        : [input.client]
    refuseMisplaced(input)
    if (input.http) {
      const url = checkServerUrl(input.url ?? DEFAULT_URL)
      return {clients: ids.map((id) => remoteSnippet(id, url, input.token))}
    }
    const options = {
      agent: input.agent_id,
      onPath: input.on_path,
      configFile: input.config_file,
      workspace: input.workspace,
      root,
    }
    const store = storeEnvironment()
    return {
      clients: ids.map((id) => snippetFor(CLIENTS[id], options, store.env)),
      ...(store.leftOut.length > 0 ? {left_out: store.leftOut} : {}),
    }
  },
  prose: (payload) => payload.clients.map((c) => ('via' in c ? remoteProse(c) : snippetProse(c))).join('\n\n'),
})

/** The flags of a stdio entry mean nothing with --http, and the other way round: said rather than ignored. */
function refuseMisplaced(input: {
  http: boolean
  agent_id?: string
  on_path: boolean
  workspace?: string
  config_file?: string
  url?: string
  token?: string
}): void {
  const given = {
    agent: input.agent_id !== undefined,
    'on-path': input.on_path,
    workspace: input.workspace !== undefined,
    'config-file': input.config_file !== undefined,
    url: input.url !== undefined,
    token: input.token !== undefined,
  }
  const misplaced = (
    input.http ? (['agent', 'on-path', 'workspace', 'config-file'] as const) : (['url', 'token'] as const)
  ).filter((flag) => given[flag])
  if (misplaced.length === 0) return
  const list = misplaced.map((f) => `--${f}`).join(', ')
  const one = misplaced.length === 1
  throw new MemError(
    'invalid_input',
    input.http
      ? `${list} ${one ? 'describes' : 'describe'} a stdio server; leave ${one ? 'it' : 'them'} out with --http (the token decides the agents)`
      : `${list} ${one ? 'applies' : 'apply'} only with --http`,
  )
}
