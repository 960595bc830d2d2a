import assert from 'node:assert/strict'
import {stripVTControlCharacters} from 'node:util'

import stringWidth from 'string-width'

import {newId} from '../../src/store/ids.js'
import {FileStore} from '../../src/store/file/file-store.js'
import type {FactRecord} from '../../src/store/records.js'
import {tempHome} from '../helpers/mem.js'
import {KEYS, renderBrowser, type BrowserHarness} from './render-browser.js'

/** Long facts of every kind of text: each is wider than the widest terminal the tests use. */
const LONG = 'A very long fact that goes on and on. '.repeat(7).trim()
const CJK = '長い事実'.repeat(35)
const EMOJI = `Party ${'🎉 '.repeat(60).trim()}`
const ACCENTS = 'Cafe\u0301 '.repeat(40).trim()

function lines(frame: string): string[] {
  return stripVTControlCharacters(frame).split('\n')
}

/** The frame is no wider than the terminal and no taller than the rows the browser draws (one less than it has). */
function assertFits(frame: string, columns: number, rows: number): void {
  const all = lines(frame)
  assert.ok(all.length <= rows - 1, `${all.length} lines on a terminal of ${rows} rows:\n${frame}`)
  for (const line of all)
    assert.ok(stringWidth(line) <= columns, `a line of ${stringWidth(line)} cells on ${columns} columns: ${line}`)
}

function factRows(frame: string): string[] {
  return lines(frame).filter((l) => /^[▸ ] just now /.test(l))
}

describe('mem browse on terminals of every size (ink app over a real store)', () => {
  let home: ReturnType<typeof tempHome>
  let ui: BrowserHarness | undefined

  beforeEach(async () => {
    home = tempHome()
    const store = new FileStore(home.home)
    for (const content of ['Short fact', ACCENTS, EMOJI, CJK, LONG])
      await store.addFact('alice', {content, tags: content === LONG ? ['long'] : []})
  })
  afterEach(() => {
    ui?.unmount()
    ui = undefined
    home.cleanup()
  })

  for (const columns of [120, 80, 60]) {
    it(`cuts every fact to ${columns} columns with an ellipsis, each on one row, the columns aligned`, async () => {
      ui = renderBrowser({home: home.home, agent: 'alice', columns, rows: 24})
      const frame = await ui.waitFor('5 facts')
      assertFits(frame, columns, 24)
      const rows = factRows(frame)
      assert.equal(rows.length, 5, `one row a fact, nothing wrapped:\n${frame}`)
      // "▸ just now " or "  just now ": 11 cells before the text; the text and the ellipsis take the rest.
      const room = columns - 11 - 1
      assert.equal(rows[0], `▸ just now ${LONG.slice(0, room)}…`)
      assert.equal(rows[1], `  just now ${CJK.slice(0, Math.floor(room / 2))}…`)
      // Two-cell characters fill the row, or leave the one cell none of them fits in.
      assert.ok([columns, columns - 1].includes(stringWidth(rows[2]!)), rows[2])
      assert.match(rows[2]!, /^ {2}just now Party 🎉 .*🎉 ?…$/)
      assert.match(rows[3]!, /^ {2}just now (Cafe\u0301 )+C?a?f?(e\u0301)?…$/)
      assert.equal(rows[4], '  just now Short fact')
    })
  }

  it('shows a long fact whole at 60×15, wrapped and scrolled, never past the screen', async () => {
    ui = renderBrowser({home: home.home, agent: 'alice', columns: 60, rows: 15})
    await ui.waitFor('5 facts')
    await ui.press(KEYS.enter)
    let frame = await ui.waitFor('lines 1-')
    assertFits(frame, 60, 15)
    const all = lines(frame)
    assert.match(all[0]!, /^mem · agent alice · fact/)
    const text = all.slice(
      2,
      all.findIndex((l) => l.startsWith('#long')),
    )
    assert.equal(text.join(' '), LONG, `the fact's text wrapped between words:\n${frame}`)
    assert.match(all.at(-1)!, /↑↓ scroll · e edit/)
    for (let i = 0; i < 20; i++) await ui.press('j')
    frame = await ui.waitFor('History · 1 version')
    assertFits(frame, 60, 15)
    assert.match(frame, /lines \d+-(\d+) of \1 · ↑↓ scroll/, 'scrolled to the end')
    // Back and into the fact of wide characters: nothing of the first view is left behind.
    await ui.press(KEYS.escape, 'j', KEYS.enter)
    frame = await ui.waitFor((f) => f.includes('長い事実') && f.includes('lines 1-'), 'the CJK fact')
    assertFits(frame, 60, 15)
    assert.ok(!frame.includes('goes on and on'), frame)
    const shown = lines(frame)
    const cjk = shown.slice(2, shown.indexOf('(no tags)'))
    assert.equal(cjk.join(''), CJK, `the whole text on the lines before its tags:\n${frame}`)
    for (const l of cjk.slice(0, -1)) assert.equal(stringWidth(l), 60, 'full lines of two-cell characters')
  })

  it('redraws at the new size when the terminal is resized', async () => {
    ui = renderBrowser({home: home.home, agent: 'alice', columns: 120, rows: 24})
    await ui.waitFor('5 facts')
    ui.resize(60, 15)
    let frame = await ui.waitFor((f) => factRows(f)[0]?.length === 60, 'the rows cut at 60 columns')
    assertFits(frame, 60, 15)
    assert.equal(factRows(frame).length, 5)
    ui.resize(90, 30)
    frame = await ui.waitFor((f) => factRows(f)[0]?.length === 90, 'the rows cut at 90 columns')
    assertFits(frame, 90, 30)
    await ui.press(KEYS.enter)
    await ui.waitFor('History')
    ui.resize(60, 15)
    frame = await ui.waitFor((f) => f.includes('lines 1-'), 'the fact view scrolled at 15 rows')
    assertFits(frame, 60, 15)
  })

  it('keeps the editor and the search box to the width, with the cursor in view', async () => {
    ui = renderBrowser({home: home.home, agent: 'alice', columns: 60, rows: 15})
    await ui.waitFor('5 facts')
    await ui.press('/', `${'deploy '.repeat(20)}end`)
    let frame = await ui.waitFor(
      (f) => /^\/ .*deploy end ?$/m.test(stripVTControlCharacters(f)),
      'the end of the query',
    )
    assertFits(frame, 60, 15)
    // Leaving the search reloads the list: `e` edits the selected fact, so wait for one.
    await ui.press(KEYS.escape, KEYS.escape)
    await ui.waitFor((f) => f.includes('Newest first') && f.includes('▸ '), 'the whole list again')
    await ui.press('e')
    frame = await ui.waitFor('Edit fact')
    assertFits(frame, 60, 15)
    assert.match(frame, /^│ A very long fact that goes on and on\. A very long fact t │$/m)
    assert.match(frame, /^│ on\. A very long fact that goes on and on\. #long {10}│$/m)
  })
})

describe('mem browse over 5,001 facts (ink app over a real store)', () => {
  let home: ReturnType<typeof tempHome>
  let ui: BrowserHarness | undefined
  const many = 5001

  before(async () => {
    home = tempHome()
    const facts: FactRecord[] = Array.from({length: many}, (_, i) => {
      const time = Date.UTC(2025, 0, 1) + (i + 1) * 60_000
      const topic = (i + 1) % 37 === 0 ? 'deploys' : (i + 1) % 1000 === 1 ? 'rollbacks' : 'things'
      return {
        id: newId(time),
        content: `Fact number ${i + 1} about ${topic}`,
        tags: [],
        created_at: new Date(time).toISOString(),
      }
    })
    await new FileStore(home.home).importRecords('big', {facts, checkpoints: []})
  })
  afterEach(() => {
    ui?.unmount()
    ui = undefined
  })
  after(() => home.cleanup())

  function open(): BrowserHarness {
    ui = renderBrowser({home: home.home, agent: 'big', columns: 80, rows: 24})
    return ui
  }

  it('counts every fact and reaches the oldest with End, the rows between with PgDn and PgUp', async () => {
    const b = open()
    const first = await b.waitFor('5,001 facts')
    assert.match(first, /^mem · agent big · 5,001 facts$/m)
    assert.match(first, /^▸ .* Fact number 5001 about rollbacks$/m)
    assert.match(first, /^ {2}1 of 5,001$/m)
    await b.press(KEYS.end)
    let frame = await b.waitFor((f) => /^▸ .* Fact number 1 about rollbacks$/m.test(f), 'the oldest fact')
    assert.match(frame, /^ {2}5,001 of 5,001$/m)
    await b.press(KEYS.pageUp)
    frame = await b.waitFor((f) => /^ {2}4,9\d\d of 5,001$/m.test(f), 'a page up from the end')
    const at = Number(/^ {2}4,(9\d\d) of 5,001$/m.exec(frame)![1]) + 4000
    assert.match(frame, new RegExp(`^▸ .* Fact number ${many + 1 - at} about`, 'm'))
    await b.press(KEYS.home)
    await b.waitFor((f) => /^▸ .* Fact number 5001 about rollbacks$/m.test(f), 'the newest fact again')
    // A page is 19 rows on 24: 30 pages down crosses several of the stretches loaded at a time.
    await b.press(KEYS.pageDown)
    await b.waitFor((f) => /^▸ .* Fact number 4982 about things$/m.test(f), 'a page down')
    for (let i = 0; i < 29; i++) await b.press(KEYS.pageDown)
    frame = await b.waitFor((f) => /^ {2}571 of 5,001$/m.test(f), '30 pages down')
    await b.waitFor((f) => /^▸ .* Fact number 4431 about things$/m.test(f), 'the rows there loaded')
  })

  it('says how many of the facts a search matches, and when it shows only the best', async () => {
    const b = open()
    await b.waitFor('5,001 facts')
    await b.press('/', 'rollbacks')
    let frame = await b.waitFor('6 matches of 5,001 facts')
    assert.equal(frame.match(/about rollbacks/g)?.length, 6)
    assert.ok(!frame.includes(' of 6'), `no footer when every match shows:\n${frame}`)
    await b.press(KEYS.ctrlU, 'deploys')
    // 135 facts say "deploys"; search returns its best 100, and says so.
    frame = await b.waitFor('the best 100 matches of 5,001 facts')
    assert.match(frame, /1 of 100 · search shows the 100 best; add words to narrow it/)
  })
})
