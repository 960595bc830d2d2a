import type {Hook} from '@oclif/core'

/**
 * `mem` alone, typed at a terminal, opens the browser; anywhere else (a pipe, a script, CI) it
 * prints the help as before. oclif 4 has no default-command setting, so this init hook runs
 * browse itself and ends the process, which would otherwise go on to print the help.
 */
const browseByDefault: Hook.Init = async function ({id, argv, config}) {
  if (id !== undefined || argv.length > 0) return
  if (!process.stdin.isTTY || !process.stdout.isTTY) return
  await config.runCommand('browse', [])
  process.exit(0)
}

export default browseByDefault
