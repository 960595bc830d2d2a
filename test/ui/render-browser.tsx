/* The test folder is outside the tsconfig that sets the JSX runtime, so it is named here. */
/** @jsxRuntime automatic */
/** @jsxImportSource react */
import {EventEmitter} from 'node:events'

import {render} from 'ink'

import type {Meaning} from '../../src/meaning/meaning.js'
import {FileStore} from '../../src/store/file/file-store.js'
import {operationsBackend, type Backend} from '../../src/ui/backend.js'
import {Browser} from '../../src/ui/browser.js'

export const KEYS = {
  up: '\u001B[A',
  down: '\u001B[B',
  left: '\u001B[D',
  right: '\u001B[C',
  pageUp: '\u001B[5~',
  pageDown: '\u001B[6~',
  home: '\u001B[H',
  end: '\u001B[F',
  enter: '\r',
  escape: '\u001B',
  backspace: '\u007F',
  ctrlA: '\u0001',
  ctrlC: '\u0003',
  ctrlE: '\u0005',
  ctrlK: '\u000B',
  ctrlU: '\u0015',
  ctrlW: '\u0017',
  altB: '\u001Bb',
  altF: '\u001Bf',
} as const

export interface BrowserHarness {
  /** The last frame ink drew. */
  frame(): string
  /** Types keys one at a time, letting ink and React settle after each. */
  press(...keys: string[]): Promise<void>
  /** Resolves with the frame once `check` holds; fails with the last frame if it never does. */
  waitFor(check: string | ((frame: string) => boolean), what?: string): Promise<string>
  /** Gives the terminal a new size, as a window resized does. */
  resize(columns: number, rows: number): void
  backend: Backend
  store: FileStore
  unmount(): void
}

/** A terminal's output side: its size, the frames written to it, and `resize` events. */
class Terminal extends EventEmitter {
  isTTY = true
  last = ''
  constructor(
    public columns: number,
    public rows: number,
  ) {
    super()
  }
  write = (frame: string): boolean => {
    this.last = frame
    return true
  }
}

/** A terminal's input side in raw mode: what is written is read as typed keys. */
class Keyboard extends EventEmitter {
  isTTY = true
  private data: string | null = null
  write(data: string): void {
    this.data = data
    this.emit('readable')
    this.emit('data', data)
  }
  read = (): string | null => {
    const {data} = this
    this.data = null
    return data
  }
  setEncoding(): void {}
  setRawMode(): void {}
  resume(): void {}
  pause(): void {}
  ref(): void {}
  unref(): void {}
}

function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 5))
}

/**
 * Renders the real browser over a real FileStore in `home`, through the same operations the
 * CLI uses, in a terminal of `columns`×`rows` (100×24 unless given). The one way UI tests
 * render it, so every test drives keys and reads frames alike.
 */
export function renderBrowser(options: {
  home: string
  agent: string
  /** Meaning on, with this process's embedder (src/meaning/); off when absent. */
  meaning?: Meaning
  named?: string
  pollMs?: number
  now?: () => Date
  columns?: number
  rows?: number
}): BrowserHarness {
  const store = new FileStore(options.home, {meaning: options.meaning})
  const backend = operationsBackend({store, defaultAgent: options.agent})
  const stdout = new Terminal(options.columns ?? 100, options.rows ?? 24)
  const stdin = new Keyboard()
  const app = render(
    <Browser
      backend={backend}
      agent={options.agent}
      named={options.named}
      pollMs={options.pollMs ?? 0}
      now={options.now}
    />,
    {
      stdout: stdout as unknown as NodeJS.WriteStream,
      stderr: new Terminal(100, 24) as unknown as NodeJS.WriteStream,
      stdin: stdin as unknown as NodeJS.ReadStream,
      // Every frame written whole, rather than as the changes from the last one.
      debug: true,
      exitOnCtrlC: false,
      patchConsole: false,
    },
  )
  const frame = (): string => stdout.last
  return {
    frame,
    backend,
    store,
    async press(...keys) {
      for (const key of keys) {
        stdin.write(key)
        await settle()
      }
    },
    async waitFor(check, what) {
      const test = typeof check === 'string' ? (f: string) => f.includes(check) : check
      // A bound on waiting, not a timing assertion: a correct browser gets there in milliseconds.
      for (let i = 0; i < 1000; i++) {
        if (test(frame())) return frame()
        await settle()
      }
      throw new Error(`the browser never showed ${what ?? JSON.stringify(check)}; last frame:\n${frame()}`)
    },
    resize(columns, rows) {
      stdout.columns = columns
      stdout.rows = rows
      stdout.emit('resize')
    },
    unmount: () => app.unmount(),
  }
}
