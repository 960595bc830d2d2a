import {Flags} from '@oclif/core'

import {parseDuration} from '../../auth/duration.js'
import {createToken} from '../../auth/tokens.js'
import {MemCommand} from '../../cli/base-command.js'
import {agentFlagFor} from '../../cli/flag-spec.js'
import {oclifFlags} from '../../cli/oclif-flags.js'
import {resolveHome} from '../../cli/home.js'
import {readingToolsInWords} from '../../mcp/read-only.js'
import {describeToken} from './list.js'

export default class TokenCreate extends MemCommand {
  static override summary = 'Make a bearer token for "mem mcp serve --http" and print it once.'
  static override description =
    "Prints the new token once: copy it into the client's config now, mem keeps only its SHA-256 hash (in <home>/auth/tokens.json, private to you). " +
    'A token may use every agent unless --agent limits it; a call naming no agent uses the first --agent that has no "*". ' +
    'A running server accepts the token at once; "mem token revoke NAME" takes it back.'
  static override examples = [
    '<%= config.bin %> token create --name laptop',
    '<%= config.bin %> token create --name ci --agent ci-bot --expires 30d',
    "<%= config.bin %> token create --name team --agent 'team-*' --agent alice",
    '<%= config.bin %> token create --name viewer --read-only --expires 12h',
  ]
  static override flags = {
    name: Flags.string({
      char: 'n',
      description: 'A name to list and revoke it by [default: token-1, token-2, …].',
      helpValue: 'NAME',
    }),
    ...oclifFlags(
      agentFlagFor('Limit the token to this agent, or to agents matching a pattern with * (repeat for several).', {
        multiple: true,
        helpValue: 'PATTERN',
      }),
    ),
    'read-only': Flags.boolean({description: `Allow only ${readingToolsInWords()}.`}),
    expires: Flags.string({
      description: 'Stop accepting the token after this long: 90s, 15m, 12h, 30d, 2w or 1h30m [default: never].',
      helpValue: 'DURATION',
    }),
  }

  async run(): Promise<unknown> {
    const {flags} = await this.parse(TokenCreate)
    const expiresInMs = flags.expires === undefined ? undefined : parseDuration(flags.expires, '--expires')
    const {token, record} = await createToken(resolveHome(), {
      name: flags.name,
      agents: flags.agent,
      readOnly: flags['read-only'],
      expiresInMs,
    })
    const payload = {token, ...describeToken(record, new Date())}
    this.print(
      this.jsonMode
        ? JSON.stringify(payload)
        : [
            `Created token "${record.name}" (${describeToken(record, new Date()).summary}). It is shown only this once:`,
            '',
            `  ${token}`,
            '',
            'Clients send it as "Authorization: Bearer <token>"; "mem mcp config --http" prints client configs.',
          ].join('\n'),
    )
    return payload
  }
}
