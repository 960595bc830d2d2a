/* The test folder is outside the tsconfig that sets the JSX runtime, so it is named here. */
/** @jsxRuntime automatic */
/** @jsxImportSource react */
import {render} from 'ink-testing-library'

import {FileStore} from '../../src/store/file-store.js'
import {operationsBackend, type Backend} from '../../src/ui/backend.js'
import {Browser} from '../../src/ui/browser.js'

export const KEYS = {
  up: '\u001B[A',
  down: '\u001B[B',
  enter: '\r',
  escape: '\u001B',
  backspace: '\u007F',
  ctrlC: '\u0003',
} as const

export interface BrowserHarness {
  /** The last frame ink drew. */
  frame(): string
  /** Types keys one at a time, letting ink and React settle after each. */
  press(...keys: string[]): Promise<void>
  /** Resolves with the frame once `check` holds; fails with the last frame if it never does. */
  waitFor(check: string | ((frame: string) => boolean), what?: string): Promise<string>
  backend: Backend
  store: FileStore
  unmount(): void
}

function settle(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 5))
}

/**
 * Renders the real browser over a real FileStore in `home`, through the same operations the
 * CLI uses. The one way UI tests render it, so every test drives keys and reads frames alike.
 */
export function renderBrowser(options: {
  home: string
  agent: string
  pollMs?: number
  now?: () => Date
}): BrowserHarness {
  const store = new FileStore(options.home)
  const backend = operationsBackend({store, defaultAgent: options.agent})
  const app = render(<Browser backend={backend} agent={options.agent} pollMs={options.pollMs ?? 0} now={options.now} />)
  const frame = (): string => app.lastFrame() ?? ''
  return {
    frame,
    backend,
    store,
    async press(...keys) {
      for (const key of keys) {
        app.stdin.write(key)
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
    unmount: () => app.unmount(),
  }
}
