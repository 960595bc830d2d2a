import {MemCommand, agentFlag} from '../cli/base-command.js'
import {namedAgent} from '../cli/unknown-agent.js'
import {MemError} from '../errors.js'
import {resolveAgent} from '../ops/operation.js'

export default class Browse extends MemCommand {
  static override summary = "Browse an agent's memory full-screen: search as you type, open, edit, delete, add."
  static override description =
    'Opens when you run `mem` with no arguments in a terminal. Keys: ↑↓ or j k move, PgUp/PgDn a screenful, Home/End to the newest/oldest, Enter opens, / searches, n adds, e edits, d deletes, a switches agent, c shows checkpoints, q or Esc leaves. The editor and the search box take readline keys (Ctrl-A/E/U/K/W, Alt-B/F). Changes other programs make appear while it is open.'
  static override examples = ['<%= config.bin %> browse --agent alice', '<%= config.bin %>']
  static override flags = {...agentFlag}

  async run(): Promise<void> {
    const {flags} = await this.parse(Browse)
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      throw new MemError(
        'invalid_input',
        'mem browse needs a terminal; in scripts use mem list, mem search or mem checkpoints (with --json)',
      )
    }
    const ctx = this.context(flags.agent, true)
    const agent = resolveAgent(ctx, undefined)
    // ink draws nothing until exit, and without colour, when CI variables say it runs unattended;
    // browse only ever runs at a terminal someone is looking at, so they go before ink loads.
    for (const name of Object.keys(process.env))
      if (name === 'CI' || name === 'CONTINUOUS_INTEGRATION' || name.startsWith('CI_')) delete process.env[name]
    // ink and react load only here: every other command stays quick to start.
    const {runBrowser} = await import('../ui/run.js')
    await runBrowser(ctx, agent, namedAgent({}, flags.agent))
  }
}
