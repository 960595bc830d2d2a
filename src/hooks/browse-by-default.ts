import type {Hook} from '@oclif/core'

/** `mem --agent team` and `mem -a team`: the flags of browse with no command before them. */
function startsWithAgentFlag(id: string | undefined): boolean {
  return id === '--agent' || id === '-a' || (id !== undefined && id.startsWith('--agent='))
}

/**
 * `mem` alone, typed at a terminal, opens the browser; anywhere else (a pipe, a script, CI) it
 * prints the help as before. `mem --agent team` opens it on that agent (and, away from a
 * terminal, says that browse needs one). oclif 4 has no default-command setting, so this init
 * hook runs browse itself and ends the process, which would otherwise go on to print the help.
 */
const browseByDefault: Hook.Init = async function ({id, argv, config}) {
  if (startsWithAgentFlag(id)) {
    await config.runCommand('browse', [id!, ...argv])
    process.exit(process.exitCode ?? 0)
  }
  if (id !== undefined || argv.length > 0) return
  if (!process.stdin.isTTY || !process.stdout.isTTY) return
  await config.runCommand('browse', [])
  process.exit(process.exitCode ?? 0)
}

export default browseByDefault
