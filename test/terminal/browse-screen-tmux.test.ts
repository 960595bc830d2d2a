import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import stringWidth from 'string-width'

import {newId} from '../../src/store/ids.js'
import {mem, tempHome} from '../helpers/mem.js'
import {memCommand, openPane, requireTmux, type Pane} from '../helpers/tmux.js'

/** Facts wider than any terminal here: plain words, two-cell characters, emoji. */
const LONG = 'A very long fact that goes on and on. '.repeat(7).trim()
const CJK = '長い事実'.repeat(35)
const EMOJI = `Party ${'🎉 '.repeat(60).trim()}`

function lines(screen: string): string[] {
  return screen.replace(/\n+$/, '').split('\n')
}

/** Every row of the screen fits the width, and the screen holds no more rows than the terminal. */
function assertFits(screen: string, columns: number, rows: number): void {
  const all = lines(screen)
  assert.ok(all.length <= rows, `${all.length} rows on a terminal of ${rows}:\n${screen}`)
  for (const line of all) assert.ok(stringWidth(line) <= columns, `${stringWidth(line)} cells on ${columns}: ${line}`)
}

/** The marker and the time column of a row (as long as its longest time, "just now" or "2 minutes ago"). */
const ROW_HEAD = /^[▸ ] (?:just now|\d+ minutes? ago) +/

/** The rows of facts, each split into its marker and time column and the text after them. */
function factRows(screen: string): {head: string; text: string}[] {
  return lines(screen).flatMap((l) => {
    const head = ROW_HEAD.exec(l)?.[0]
    return head === undefined ? [] : [{head, text: l.slice(head.length)}]
  })
}

describe('mem browse in a real terminal of every size (tmux)', function () {
  let home: ReturnType<typeof tempHome>
  let pane: Pane | undefined

  before(function () {
    requireTmux()
    home = tempHome()
    for (const text of ['Short fact', EMOJI, CJK, LONG])
      assert.equal(mem(home.home, ['add', text, '--agent', 'alice']).code, 0)
    assert.equal(mem(home.home, ['save', '--agent', 'team', '--state', '{"sprint":4}']).code, 0)
  })
  afterEach(() => {
    pane?.close()
    pane = undefined
  })
  after(() => home.cleanup())

  function start(args: string[], width: number, height: number): Pane {
    pane = openPane(`${memCommand(home.home, args)}; echo "mem exited $?"; sleep 600`, {width, height})
    return pane
  }

  it('cuts long facts to the width at 120, 80 and 60 columns, and redraws when the terminal is resized', async () => {
    const p = start([], 120, 24)
    for (const columns of [120, 80, 60]) {
      if (columns !== 120) p.tmux('resize-window', '-t', 'mem', '-x', String(columns), '-y', '24')
      // Until the browser redraws, tmux shows the old rows cut short at the new width, without their ellipsis.
      const screen = await p.waitForScreen(
        (s) =>
          factRows(s).length === 4 &&
          factRows(s)[0]!.text.endsWith('…') &&
          lines(s).every((l) => stringWidth(l) <= columns) &&
          factRows(s)[0]!.head.length + stringWidth(factRows(s)[0]!.text) === columns,
        `four rows cut at ${columns} columns`,
      )
      assertFits(screen, columns, 24)
      const [long, cjk, emoji, short] = factRows(screen)
      // Every row has the same marker and time column, whatever its text.
      const head = long!.head.length
      assert.ok(
        [cjk, emoji, short].every((r) => r!.head.length === head),
        `the columns line up:\n${screen}`,
      )
      const room = columns - head - 1
      assert.equal(long!.text, `${LONG.slice(0, room)}…`)
      assert.equal(cjk!.text, `${CJK.slice(0, Math.floor(room / 2))}…`)
      assert.match(emoji!.text, /^Party 🎉 .*🎉 ?…$/)
      assert.ok(stringWidth(emoji!.text) >= room, emoji!.text)
      assert.equal(short!.text, 'Short fact')
      assert.match(lines(screen)[0]!, /^mem · agent alice · 4 facts$/)
    }
    p.type('q')
    await p.waitForScreen('mem exited 0')
  })

  it('shows a long fact at 60×15 within the screen, and the next fact leaves nothing of it behind', async () => {
    const p = start([], 60, 15)
    await p.waitForScreen('4 facts')
    p.type('Enter')
    let screen = await p.waitForScreen('lines 1-')
    assertFits(screen, 60, 15)
    let all = lines(screen)
    assert.equal(all[0], 'mem · agent alice · fact')
    assert.equal(all.slice(2, 7).join(' '), LONG, `the whole text, wrapped between words:\n${screen}`)
    assert.match(all.at(-1)!, /^↑↓ scroll · e edit · d delete/)
    // Esc then j in one burst would read as Alt-J: the list first.
    p.type('Escape')
    await p.waitForScreen('4 facts')
    p.type('j', 'Enter')
    screen = await p.waitForScreen((s) => s.includes('長い事実') && s.includes('lines 1-'), 'the CJK fact')
    assertFits(screen, 60, 15)
    assert.ok(!screen.includes('goes on and on'), `nothing left of the fact before:\n${screen}`)
    all = lines(screen)
    assert.equal(all[0], 'mem · agent alice · fact')
    assert.equal(all.slice(2, all.indexOf('(no tags)')).join(''), CJK)
    p.type('q', 'q')
    await p.waitForScreen('mem exited 0')
  })

  it('mem --agent alcie names the agents there are and creates alcie only once asked to', async () => {
    let p = start(['--agent', 'alcie'], 100, 24)
    await p.waitForScreen('no agent alcie; known agents: alice, team')
    p.type('n')
    await p.waitForScreen('Create agent alcie?')
    p.type('n')
    await p.waitForScreen('no agent alcie; known agents')
    p.type('q')
    await p.waitForScreen('mem exited 0')
    const agents = JSON.parse(mem(home.home, ['agents', '--json']).stdout) as {agents: {agent_id: string}[]}
    assert.deepEqual(
      agents.agents.map((a) => a.agent_id),
      ['alice', 'team'],
      'browsing a typo wrote nothing',
    )
    p.close()

    p = start(['--agent', 'alcie'], 100, 24)
    await p.waitForScreen('no agent alcie')
    p.type('n', 'y')
    await p.waitForScreen('New fact for agent alcie')
    p.type('-l', 'Lunch is at noon')
    p.type('Enter')
    await p.waitForScreen('mem · agent alcie · 1 fact')
    p.type('q')
    await p.waitForScreen('mem exited 0')
    assert.match(mem(home.home, ['list', '--agent', 'alcie']).stdout, /Lunch is at noon/)
  })

  it('an agent with checkpoints and no facts says "No facts yet"', async () => {
    const p = start(['--agent', 'team'], 100, 24)
    const screen = await p.waitForScreen('No facts yet. Press n to add one.')
    assert.ok(!screen.includes('no agent'), screen)
    p.type('q')
    await p.waitForScreen('mem exited 0')
  })

  it('the editor takes Ctrl-W, Ctrl-A, Ctrl-E, Ctrl-U and Alt-B', async () => {
    const p = start(['--agent', 'keys'], 100, 24)
    await p.waitForScreen('no agent keys')
    p.type('n', 'y')
    await p.waitForScreen('New fact for agent keys')
    p.type('-l', 'gone')
    p.type('C-u')
    p.type('-l', 'one two three')
    p.type('C-w', 'C-a')
    p.type('-l', 'X ')
    p.type('C-e')
    p.type('-l', 'end')
    p.type('M-b')
    p.type('-l', 'the ')
    await p.waitForScreen('X one two the end')
    p.type('Enter')
    await p.waitForScreen('mem · agent keys · 1 fact')
    p.type('q')
    await p.waitForScreen('mem exited 0')
    assert.match(mem(home.home, ['list', '--agent', 'keys']).stdout, /1\. X one two the end \(/)
  })
})

describe('mem browse over 5,001 facts in a real terminal (tmux)', function () {
  let home: ReturnType<typeof tempHome>
  let pane: Pane | undefined

  before(function () {
    requireTmux()
    home = tempHome()
    const header = {
      type: 'header',
      format: 'mem.export',
      version: 1,
      exported_at: '2026-01-01T00:00:00Z',
      mem_version: '0.1.0',
    }
    const facts = Array.from({length: 5001}, (_, i) => {
      const time = Date.UTC(2025, 0, 1) + (i + 1) * 60_000
      const topic = (i + 1) % 37 === 0 ? 'deploys' : 'things'
      return {
        type: 'fact',
        agent_id: 'big',
        id: newId(time),
        content: `Fact number ${i + 1} about ${topic}`,
        tags: [],
        created_at: new Date(time).toISOString(),
      }
    })
    const file = join(home.home, 'big.jsonl')
    writeFileSync(file, [header, ...facts].map((line) => JSON.stringify(line)).join('\n') + '\n')
    assert.equal(mem(home.home, ['import', file]).code, 0)
  })
  after(() => {
    pane?.close()
    home.cleanup()
  })

  it('counts all 5,001, reaches the oldest, and says when a search shows only its best 100', async () => {
    pane = openPane(`${memCommand(home.home, ['--agent', 'big'])}; echo "mem exited $?"; sleep 600`, {
      width: 80,
      height: 24,
    })
    const first = await pane.waitForScreen('5,001 facts')
    assert.match(first, /^mem · agent big · 5,001 facts$/m)
    pane.type('End')
    let screen = await pane.waitForScreen((s) => /^▸ .* Fact number 1 about things$/m.test(s), 'the oldest fact')
    assert.match(screen, /^ {2}5,001 of 5,001$/m)
    pane.type('PageUp')
    screen = await pane.waitForScreen((s) => /^ {2}4,982 of 5,001$/m.test(s), 'a page up')
    assert.match(screen, /^▸ .* Fact number 20 about things$/m)
    pane.type('Home', '/')
    pane.type('-l', 'deploys')
    screen = await pane.waitForScreen('the best 100 matches of 5,001 facts')
    assert.match(screen, /1 of 100 · search shows the 100 best; add words to narrow it/)
    pane.type('Escape')
    await pane.waitForScreen('Esc clears')
    pane.type('Escape')
    await pane.waitForScreen('press / to search')
    pane.type('q')
    await pane.waitForScreen('mem exited 0')
  })
})
