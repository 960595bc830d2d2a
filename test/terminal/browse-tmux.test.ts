import assert from 'node:assert/strict'
import {execFileSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {mem, tempHome} from '../helpers/mem.js'
import {memCommand, openPane, requireTmux, type Pane} from '../helpers/tmux.js'

/** The real binary in a real pseudo-terminal (test/helpers/tmux.ts). */
let pane: Pane | undefined

function current(): Pane {
  if (!pane) throw new Error('no pane started')
  return pane
}

function tmux(...args: string[]): string {
  return current().tmux(...args)
}

function screen(): string {
  return current().screen()
}

function waitForScreen(check: string | ((s: string) => boolean), what?: string): Promise<string> {
  return current().waitForScreen(check, what)
}

/** Starts `mem args` in a fresh 100x24 tmux window; the pane stays to report the exit and the terminal modes. */
function start(home: string, args: string[], noColor = false): void {
  const modes = `stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\\n' ' '`
  pane = openPane(`${memCommand(home, args, {noColor})}; echo "mem exited $?"; echo "modes: $(${modes})"; sleep 600`)
}

/** After the browser exits: it ended as expected and left the terminal cooked, echoing and on the main screen. */
async function assertRestored(status = 0): Promise<void> {
  const after = await waitForScreen('modes:', 'the browser exiting')
  assert.match(after, new RegExp(`mem exited ${status}\\b`))
  assert.match(after, /^modes: icanon echo *$/m, `line editing and echo are back:\n${after}`)
  assert.ok(!after.includes('q quit'), `the browser's screen is gone (alternate screen left):\n${after}`)
}

describe('mem in a real terminal (tmux)', function () {
  let home: ReturnType<typeof tempHome>

  before(function () {
    requireTmux()
    home = tempHome()
    for (const [text, tag] of [
      ['Prefers pnpm as package manager', 'tooling'],
      ['Deploys happen on Tuesdays', 'ops'],
      ['The staging database is read-only on Fridays', 'ops'],
    ]) {
      assert.equal(mem(home.home, ['add', text!, '--tag', tag!, '--agent', 'alice']).code, 0)
    }
  })
  afterEach(() => {
    pane?.close()
    pane = undefined
  })
  after(() => home.cleanup())

  it('bare mem opens the browser: search, open a fact, see another process write, quit', async () => {
    start(home.home, [])
    const first = await waitForScreen('3 facts')
    assert.match(first, /mem · agent alice · 3 facts/)
    assert.match(first, /▸ just now The staging database is read-only on Fridays #ops/)

    tmux('send-keys', '-t', 'mem', '/', 'staging')
    await waitForScreen((s) => s.includes('/ staging') && s.includes('The staging database'), 'the search')
    assert.match(
      tmux('capture-pane', '-p', '-e', '-t', 'mem'),
      // eslint-disable-next-line no-control-regex -- reading the terminal's own colour codes
      /\u001B\[[\d;]*33m(?:\u001B\[[\d;]*m)*staging/,
      'the matched word is shown in yellow',
    )
    tmux('send-keys', '-t', 'mem', 'Enter', 'Enter')
    const detail = await waitForScreen('History')
    assert.match(detail, /The staging database is read-only on Fridays/)
    assert.match(detail, /id [0-9A-Z]{26} · agent alice/)
    tmux('send-keys', '-t', 'mem', 'Escape')
    await waitForScreen('/ staging')
    tmux('send-keys', '-t', 'mem', 'Escape')
    await waitForScreen('press / to search')

    assert.equal(mem(home.home, ['add', 'Written by another process', '--agent', 'alice']).code, 0)
    await waitForScreen((s) => s.includes('Written by another process') && s.includes('4 facts'), 'the new fact')

    tmux('send-keys', '-t', 'mem', 'q')
    await assertRestored()
  })

  it('Ctrl-C leaves mem browse with the terminal restored', async () => {
    start(home.home, ['browse'])
    // Once facts are listed the app is mounted and reading keys in raw mode.
    await waitForScreen((s) => /\d+ facts/.test(s), 'the loaded list')
    tmux('send-keys', '-t', 'mem', 'C-c')
    // 130 = 128 + SIGINT, what shells expect of a program the user interrupted.
    await assertRestored(130)
  })

  it('adds a fact with #tags typed in its text, and the cursor lands on it', async () => {
    assert.equal(mem(home.home, ['add', 'Coffee machine is on floor 2', '--agent', 'desk']).code, 0)
    assert.equal(mem(home.home, ['add', 'Printer is on floor 3', '--agent', 'desk']).code, 0)
    start(home.home, ['--agent', 'desk'])
    await waitForScreen('2 facts')
    tmux('send-keys', '-t', 'mem', 'j', 'n')
    await waitForScreen('New fact')
    tmux('send-keys', '-t', 'mem', '-l', 'Badge readers reset at 6 #office')
    tmux('send-keys', '-t', 'mem', 'Enter')
    const after = await waitForScreen('3 facts')
    assert.match(after, /^▸ .*Badge readers reset at 6 #office\s*$/m, `the cursor is on the new fact:\n${after}`)
    const stored = JSON.parse(mem(home.home, ['list', '--agent', 'desk', '--json']).stdout) as {
      facts: {content: string; tags: string[]}[]
    }
    assert.deepEqual(stored.facts[0], {...stored.facts[0], content: 'Badge readers reset at 6', tags: ['office']})
    tmux('send-keys', '-t', 'mem', 'q')
    await assertRestored()
  })

  it('mem --agent ID opens the browser on that agent', async () => {
    assert.equal(mem(home.home, ['add', 'Team standup is at ten', '--agent', 'team']).code, 0)
    start(home.home, ['--agent', 'team'])
    const first = await waitForScreen('1 fact')
    assert.match(first, /mem · agent team · 1 fact\b/)
    tmux('send-keys', '-t', 'mem', 'q')
    await assertRestored()
  })

  it('a SIGTERM ends mem browse with the terminal restored', async () => {
    start(home.home, ['browse'])
    await waitForScreen((s) => /\d+ facts/.test(s), 'the loaded list')
    // The pane runs sh, and sh runs mem: signal that one process, which this test started.
    const shell = tmux('list-panes', '-t', 'mem', '-F', '#{pane_pid}').trim()
    const child = execFileSync('pgrep', ['-P', shell], {encoding: 'utf8'}).trim().split('\n')
    assert.equal(child.length, 1, `one process under the pane's shell: ${child.join(', ')}`)
    process.kill(Number(child[0]), 'SIGTERM')
    await assertRestored(143)
  })

  it('a file that cannot be read shows as an error, and q still leaves cleanly', async () => {
    const broken = tempHome()
    try {
      assert.equal(mem(broken.home, ['add', 'Soon unreadable', '--agent', 'alice']).code, 0)
      writeFileSync(join(broken.home, 'agents', 'alice', 'facts', '000001.json'), '{oops')
      start(broken.home, ['browse'])
      await waitForScreen('cannot be used', 'the store error')
      tmux('send-keys', '-t', 'mem', 'q')
      await assertRestored()
    } finally {
      broken.cleanup()
    }
  })

  it('at a terminal, mem search prints coloured, aligned output with relative dates', async () => {
    start(home.home, ['search', 'deploys', '--agent', 'alice'])
    const out = await waitForScreen('mem exited')
    assert.match(out, /facts? for "deploys" · agent alice/)
    assert.match(out, /^ {2}1\. {2}[0-9A-Z]{26} {2}just now {2}Deploys happen on Tuesdays #ops$/m)
    const styled = tmux('capture-pane', '-p', '-e', '-t', 'mem')
    assert.ok(styled.includes('\u001B['), 'colour reaches the terminal')
  })

  it('with NO_COLOR, mem search at a terminal prints exactly the plain prose', async () => {
    const plain = mem(home.home, ['search', 'deploys', '--agent', 'alice'])
    start(home.home, ['search', 'deploys', '--agent', 'alice'], true)
    await waitForScreen('mem exited')
    const styled = tmux('capture-pane', '-p', '-e', '-t', 'mem')
    assert.ok(!styled.includes('\u001B['), `no colour codes:\n${styled}`)
    assert.ok(screen().startsWith(plain.stdout), `the prose, byte for byte:\n${screen()}`)
  })
})
