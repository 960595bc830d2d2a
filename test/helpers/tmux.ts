import {execFileSync, spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {BIN} from './mem.js'

/**
 * A real pseudo-terminal: tmux runs a shell script in a pane, send-keys types, capture-pane
 * reads the screen. Each pane has a tmux server of its own (a server still shutting down never
 * meets the next test), on a socket in a temp folder removed with it. CI needs the `tmux`
 * package (apt-get install tmux).
 */
export interface Pane {
  tmux(...args: string[]): string
  /** The visible text. */
  screen(): string
  /** The visible text with its colour codes. */
  styled(): string
  /** What the program running in the pane set as its title (tmux's pane_title). */
  title(): string
  /** tmux's paste buffers, where a clipboard write (OSC 52) lands. */
  buffers(): string
  type(...keys: string[]): void
  waitForScreen(check: string | ((s: string) => boolean), what?: string): Promise<string>
  close(): void
}

export function requireTmux(): void {
  const which = spawnSync('tmux', ['-V'], {encoding: 'utf8'})
  if (which.status !== 0) throw new Error('these tests need tmux: install the tmux package (apt-get install tmux)')
}

export function shellQuote(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`
}

/** A shell command running the built `mem` with `args` against `home`, with colour unless `noColor`. */
export function memCommand(
  home: string,
  args: string[],
  {agent = 'alice', noColor = false}: {agent?: string; noColor?: boolean} = {},
): string {
  const env = `env -u NO_COLOR MEM_HOME=${shellQuote(home)} MEM_AGENT=${shellQuote(agent)}${noColor ? ' NO_COLOR=1' : ''}`
  return `${env} ${shellQuote(process.execPath)} ${shellQuote(BIN)} ${args.map(shellQuote).join(' ')}`
}

/**
 * Opens a `width`×`height` pane running `script` under sh. Clipboard writes are let through to
 * tmux's buffers (set-clipboard on), so a test can see whether one happened.
 */
export function openPane(script: string, {width = 100, height = 24}: {width?: number; height?: number} = {}): Pane {
  const folder = mkdtempSync(join(tmpdir(), 'mem-tmux-'))
  const socket = join(folder, 'tmux')
  const tmux = (...args: string[]): string => execFileSync('tmux', ['-S', socket, ...args], {encoding: 'utf8'})
  tmux('new-session', '-d', '-s', 'mem', '-x', String(width), '-y', String(height), 'sh', '-c', script)
  tmux('set-option', '-s', 'set-clipboard', 'on')
  const screen = (): string => tmux('capture-pane', '-p', '-t', 'mem')
  return {
    tmux,
    screen,
    styled: () => tmux('capture-pane', '-p', '-e', '-t', 'mem'),
    title: () => tmux('display-message', '-p', '-t', 'mem', '#{pane_title}').trim(),
    buffers: () => tmux('list-buffers'),
    type: (...keys) => void tmux('send-keys', '-t', 'mem', ...keys),
    async waitForScreen(check, what) {
      const test = typeof check === 'string' ? (s: string) => s.includes(check) : check
      // A bound on waiting for the program, not a timing assertion.
      for (let i = 0; i < 300; i++) {
        const s = screen()
        if (test(s)) return s
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      throw new Error(`the terminal never showed ${what ?? JSON.stringify(check)}; it shows:\n${screen()}`)
    },
    close() {
      spawnSync('tmux', ['-S', socket, 'kill-server'])
      rmSync(folder, {recursive: true, force: true})
    },
  }
}
