import {readTokens, type TokenRecord} from '../../auth/tokens.js'
import {MemCommand} from '../../cli/base-command.js'
import {resolveHome} from '../../cli/home.js'

/** A token as `mem token list` shows it: never its hash. */
export function describeToken(
  record: TokenRecord,
  now: Date,
): {
  name: string
  agents: string[] | null
  read_only: boolean
  created_at: string
  expires_at: string | null
  expired: boolean
  summary: string
} {
  const expired = record.expires_at !== null && Date.parse(record.expires_at) <= now.getTime()
  const parts = [
    record.agents === null ? 'every agent' : `agents ${record.agents.join(', ')}`,
    record.read_only ? 'read-only' : 'read and write',
  ]
  parts.push(record.expires_at === null ? 'never expires' : `${expired ? 'expired' : 'expires'} ${record.expires_at}`)
  return {
    name: record.name,
    agents: record.agents,
    read_only: record.read_only,
    created_at: record.created_at,
    expires_at: record.expires_at,
    expired,
    summary: parts.join(', '),
  }
}

export default class TokenList extends MemCommand {
  static override summary = 'List the tokens "mem mcp serve --http" accepts.'
  static override description =
    "Shows each token's name, the agents it may use, whether it may write and when it expires. The tokens themselves are not kept, so they cannot be shown."
  static override examples = [
    '<%= config.bin %> token list',
    "<%= config.bin %> token list --json | jq -r '.tokens[].name'",
  ]

  async run(): Promise<unknown> {
    await this.parse(TokenList)
    const now = new Date()
    const tokens = readTokens(resolveHome()).map((t) => describeToken(t, now))
    const payload = {count: tokens.length, tokens}
    this.print(
      this.jsonMode
        ? JSON.stringify(payload)
        : tokens.length === 0
          ? 'No tokens yet; "mem token create" makes one.'
          : tokens.map((t) => `${t.name}: ${t.summary} (created ${t.created_at})`).join('\n'),
    )
    return payload
  }
}
