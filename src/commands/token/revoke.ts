import {Args} from '@oclif/core'

import {revokeToken} from '../../auth/tokens.js'
import {MemCommand} from '../../cli/base-command.js'
import {resolveHome} from '../../cli/home.js'

export default class TokenRevoke extends MemCommand {
  static override summary = 'Take back a token: a running server refuses it from its next request on.'
  static override examples = ['<%= config.bin %> token revoke laptop']
  static override args = {
    name: Args.string({description: 'The token\'s name, as "mem token list" shows it.', required: true}),
  }

  async run(): Promise<unknown> {
    const {args} = await this.parse(TokenRevoke)
    const record = await revokeToken(resolveHome(), args.name)
    const payload = {name: record.name, revoked: true}
    this.print(
      this.jsonMode ? JSON.stringify(payload) : `Revoked token "${record.name}"; servers refuse it from now on.`,
    )
    return payload
  }
}
