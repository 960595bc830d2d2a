import * as v from 'valibot'

import {defineOperation} from '../ops/operation.js'
import {CLIENT_IDS, CLIENTS} from './clients.js'
import {applyChange, planServerEntry} from './config-file.js'
import {LaunchInput, type SetupContext} from './mcp-config.js'
import {SERVER_NAME, snippetFor} from './snippet.js'
import {storeEnvironment} from './store-env.js'
import {unifiedDiff} from './text-diff.js'

/** `mem mcp install`: merges the entry `mem mcp config` prints into the client's config file. */
export const mcpInstall = defineOperation({
  tool: 'mcp_install',
  title: 'Add mem to an MCP client',
  description: "Merges mem's server entry into an MCP client's config file, keeping everything else in it.",
  annotations: {readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false},
  input: v.strictObject({client: v.picklist(CLIENT_IDS), ...LaunchInput, dry_run: v.optional(v.boolean(), false)}),
  output: v.object({
    client: v.picklist(CLIENT_IDS),
    config_file: v.string(),
    dry_run: v.boolean(),
    changed: v.boolean(),
    created: v.boolean(),
    replaced: v.boolean(),
    /** The copy of the old file, when one was changed. */
    backup: v.optional(v.string()),
    diff: v.string(),
    /** Secrets of this shell's database connection the entry does not hold (store-env.ts); absent when none. */
    left_out: v.optional(v.array(v.string())),
  }),
  async handler({root}: SetupContext, input) {
    const client = CLIENTS[input.client]
    const store = storeEnvironment()
    const snippet = snippetFor(
      client,
      {agent: input.agent_id, onPath: input.on_path, configFile: input.config_file, workspace: input.workspace, root},
      store.env,
    )
    const change = planServerEntry(
      snippet.config_file,
      client.serversKey,
      SERVER_NAME,
      snippet.snippet[client.serversKey]![SERVER_NAME]!,
    )
    const diff = unifiedDiff(change.before, change.after, change.file)
    const backup = input.dry_run ? undefined : applyChange(change)
    return {
      client: client.id,
      config_file: change.file,
      dry_run: input.dry_run,
      changed: change.changed,
      created: change.created,
      replaced: change.replaced,
      ...(backup ? {backup} : {}),
      diff,
      ...(store.leftOut.length > 0 ? {left_out: store.leftOut} : {}),
    }
  },
  prose(p) {
    if (!p.changed) return `${p.config_file} already has this mem entry; nothing changed.`
    if (p.dry_run) return `${p.diff}\nDry run: ${p.config_file} was not changed.`
    const what = p.created
      ? `Created ${p.config_file} with the mem server`
      : `${p.replaced ? 'Replaced the mem server entry in' : 'Added the mem server to'} ${p.config_file} (backup: ${p.backup})`
    return `${what}.\n${CLIENTS[p.client].afterInstall}`
  },
})
