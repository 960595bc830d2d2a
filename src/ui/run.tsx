import {render} from 'ink'
import {constants} from 'node:os'

import type {OperationContext} from '../ops/index.js'
import {operationsBackend} from './backend.js'
import {Browser, Interrupted} from './browser.js'

const ENTER_ALT_SCREEN = '\u001B[?1049h'
const LEAVE_ALT_SCREEN = '\u001B[?1049l'
const SHOW_CURSOR = '\u001B[?25h'
const SIGNALS: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP']

/**
 * Puts the terminal back as it was: cooked mode, cursor shown, main screen. Safe to run twice,
 * and run on every way out (quit, Ctrl-C, a signal, an error), so a crash never leaves the
 * terminal raw or on the alternate screen.
 */
function restoreTerminal(): void {
  if (process.stdin.isTTY && process.stdin.isRaw) process.stdin.setRawMode(false)
  process.stdout.write(SHOW_CURSOR + LEAVE_ALT_SCREEN)
}

/** Runs the full-screen browser until the person leaves it; `named` is the agent as the command line named it, if it did. */
export async function runBrowser(ctx: OperationContext, agent: string, named: string | undefined): Promise<void> {
  // In raw mode Ctrl-C is a key ink handles; SIGINT still comes before raw mode is on, or from kill.
  const onSignal = (signal: NodeJS.Signals): void => {
    restoreTerminal()
    process.exit(128 + constants.signals[signal])
  }
  process.stdout.write(ENTER_ALT_SCREEN)
  process.once('exit', restoreTerminal)
  for (const signal of SIGNALS) process.once(signal, onSignal)
  try {
    // Ctrl-C is a key the browser handles (src/ui/keys.ts), so that it can end with status 130 as shells expect.
    const app = render(<Browser backend={operationsBackend(ctx)} agent={agent} named={named} />, {
      exitOnCtrlC: false,
      patchConsole: false,
    })
    try {
      await app.waitUntilExit()
    } catch (error) {
      if (!(error instanceof Interrupted)) throw error
      process.exitCode = 130
    }
  } finally {
    restoreTerminal()
    process.off('exit', restoreTerminal)
    for (const signal of SIGNALS) process.off(signal, onSignal)
  }
}
