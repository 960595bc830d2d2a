import assert from 'node:assert/strict'

import {FileStore} from '../../src/store/file-store.js'
import {tempHome} from '../helpers/mem.js'
import {KEYS, renderBrowser, type BrowserHarness} from './render-browser.js'

describe('mem browse (ink app over a real store)', () => {
  let home: ReturnType<typeof tempHome>
  let ui: BrowserHarness | undefined
  let store: FileStore

  beforeEach(async () => {
    home = tempHome()
    store = new FileStore(home.home)
    await store.addFact('alice', {content: 'Prefers pnpm as package manager', tags: ['tooling']})
    await store.addFact('alice', {content: 'Deploys happen on Tuesdays', tags: ['ops']})
    await store.addFact('alice', {content: 'The staging database is read-only on Fridays', tags: ['ops']})
  })
  afterEach(() => {
    ui?.unmount()
    ui = undefined
    home.cleanup()
  })

  function open(pollMs = 0): BrowserHarness {
    ui = renderBrowser({home: home.home, agent: 'alice', pollMs})
    return ui
  }

  function lineOf(frame: string, text: string): string {
    return frame.split('\n').find((l) => l.includes(text)) ?? ''
  }

  it('lists live facts newest first with the cursor on the first', async () => {
    const b = open()
    const frame = await b.waitFor('3 facts')
    const order = ['staging database', 'Deploys happen', 'Prefers pnpm'].map((t) => frame.indexOf(t))
    assert.ok(
      order.every((at) => at > 0),
      frame,
    )
    assert.deepEqual(
      [...order].sort((x, y) => x - y),
      order,
      `newest first:\n${frame}`,
    )
    assert.match(lineOf(frame, 'staging database'), /▸/)
    assert.match(frame, /q quit/)
  })

  function rows(frame: string): string[] {
    return frame.split('\n').filter((l) => /^[▸ ] /.test(l) && /\S/.test(l.slice(2)))
  }

  it('searches as you type and ranks like mem search', async () => {
    await store.addFact('alice', {content: 'Rollbacks need a second reviewer', tags: []})
    const b = open()
    await b.waitFor('4 facts')
    await b.press('/', 'r', 'e', 'v', 'i', 'e', 'w', 'e', 'r')
    const ranked = await b.backend.facts('alice', 'reviewer')
    assert.equal(ranked[0]?.content, 'Rollbacks need a second reviewer')
    const frame = await b.waitFor(
      (f) => f.includes('/ reviewer') && f.includes(`${ranked.length} fact`),
      'the reviewer results',
    )
    const shown = rows(frame).map((r) => ranked.findIndex((f) => r.includes(f.content)))
    assert.deepEqual(
      shown,
      ranked.map((_, i) => i),
      `the order mem search gives:\n${frame}`,
    )
    // Esc stops typing, the next Esc clears the search and the full list returns.
    await b.press(KEYS.escape)
    await b.waitFor('Esc clears')
    await b.press(KEYS.escape)
    await b.waitFor((f) => f.includes('4 facts') && f.includes('press / to search'), 'the full list again')
  })

  it('shows a hit that came as context of a thread dimmed and marked, and the thread in the details', async () => {
    await store.addFact('alice', {content: 'which heater did the landlord install?', tags: [], thread: 'flat'})
    await store.addFact('alice', {content: 'a Dimplex panel in the hallway', tags: [], thread: 'flat'})
    const b = open()
    await b.waitFor('5 facts')
    await b.press('/', 'heater')
    const frame = await b.waitFor((f) => f.includes('/ heater') && f.includes('2 facts'), 'the heater results')
    assert.match(lineOf(frame, 'Dimplex'), /↳ a Dimplex panel in the hallway/)
    assert.doesNotMatch(lineOf(frame, 'which heater'), /↳/)
    await b.press(KEYS.escape, KEYS.enter)
    await b.waitFor('thread flat')
  })

  it('matches the word being typed as a prefix from its first letter', async () => {
    const b = open()
    await b.waitFor('3 facts')
    await b.press('/', 's', 't')
    const frame = await b.waitFor(
      (f) => f.includes('/ st') && f.includes('1 fact'),
      'the facts that have a word starting with "st"',
    )
    assert.match(lineOf(frame, 'staging'), /▸/)
    await b.press('a', 'g', 'i', 'n', 'g', ' ', 'd')
    // "d" is being typed: it starts "database" and "Deploys". The fact matching both words leads.
    const both = await b.waitFor(
      (f) => f.includes('/ staging d') && f.includes('2 facts'),
      'the facts matching "staging" and a word starting with "d"',
    )
    assert.match(lineOf(both, 'staging database'), /▸/)
    assert.ok(both.indexOf('staging database') < both.indexOf('Deploys happen'), both)
  })

  it('says so when nothing matches', async () => {
    const b = open()
    await b.waitFor('3 facts')
    await b.press('/', 'zebra')
    await b.waitFor('No facts found for "zebra"')
  })

  it('keys typed in one burst act one at a time', async () => {
    const b = open()
    await b.waitFor('3 facts')
    await b.press('/zebra')
    await b.waitFor('No facts found for "zebra"', 'the burst as a search')
  })

  it('moves with arrows and j/k and opens a fact with its details and history', async () => {
    const b = open()
    await b.waitFor('3 facts')
    await b.press('j', KEYS.down, 'k')
    // Wait for the frame rather than read it at once: a loaded machine may draw the last key late.
    await b.waitFor((f) => /▸/.test(lineOf(f, 'Deploys happen')), 'the cursor on the second fact')
    await b.press(KEYS.enter)
    const frame = await b.waitFor('History')
    const [deploy] = (await store.listFacts('alice')).filter((f) => f.content.startsWith('Deploys'))
    assert.ok(frame.includes(`id ${deploy!.id} · agent alice`), frame)
    assert.ok(frame.includes('#ops'), frame)
    assert.ok(frame.includes(deploy!.created_at), frame)
    assert.ok(frame.includes('1 version'), frame)
    await b.press(KEYS.escape)
    await b.waitFor('3 facts')
  })

  it('edits a fact as a reflect update that keeps the old version in history', async () => {
    const b = open()
    await b.waitFor('3 facts')
    await b.press('j', 'e')
    const editing = await b.waitFor('Edit fact')
    assert.equal(editing.match(/Esc cancel/g)?.length, 1, `the hint shows once:\n${editing}`)
    assert.match(editing, /Deploys happen on Tuesdays #ops/, 'the editor holds the tags as #words')
    for (let i = 0; i < 'Tuesdays #ops'.length; i++) await b.press(KEYS.backspace)
    await b.press('Wednesdays #ops', KEYS.enter)
    await b.waitFor('Updated fact')
    const facts = await store.listFacts('alice')
    const old = facts.find((f) => f.content === 'Deploys happen on Tuesdays')
    const next = facts.find((f) => f.content === 'Deploys happen on Wednesdays')
    assert.ok(old && next, JSON.stringify(facts))
    assert.equal(old.superseded_by, next.id)
    assert.deepEqual(next.tags, ['ops'], 'an update keeps the tags left in the editor')
    await b.waitFor('Deploys happen on Wednesdays')
    await b.press('/', 'deploy', KEYS.enter, KEYS.enter)
    const history = await b.waitFor('2 versions')
    assert.ok(history.includes('Deploys happen on Tuesdays') && history.includes(`replaced`), history)
  })

  it('deletes only after confirmation, as a reflect delete', async () => {
    const b = open()
    await b.waitFor('3 facts')
    await b.press('d')
    await b.waitFor('Delete this fact?')
    await b.press('n')
    await b.waitFor('3 facts')
    assert.equal((await store.listFacts('alice')).filter((f) => f.deleted_at).length, 0)
    await b.press('d', 'y')
    await b.waitFor('Deleted fact')
    const deleted = (await store.listFacts('alice')).filter((f) => f.deleted_at)
    assert.deepEqual(
      deleted.map((f) => f.content),
      ['The staging database is read-only on Fridays'],
    )
    await b.waitFor('2 facts')
  })

  it('takes #words typed in a new fact as its tags, leaves a # inside a word as text, and puts the cursor on it', async () => {
    const b = open()
    await b.waitFor('3 facts')
    await b.press('j', 'j')
    await b.press('n', 'The C# build runs on printer host 3 #office #infra', KEYS.enter)
    await b.waitFor('Added fact')
    const frame = await b.waitFor('4 facts')
    const added = (await store.listFacts('alice')).find((f) => f.content.startsWith('The C#'))
    assert.ok(added, 'the fact is stored')
    assert.equal(added.content, 'The C# build runs on printer host 3')
    assert.deepEqual(added.tags, ['office', 'infra'])
    assert.match(lineOf(frame, 'The C# build'), /^▸ .*#office #infra/, `the cursor is on the new fact:\n${frame}`)
    await b.press(KEYS.enter)
    await b.waitFor('#office #infra')
  })

  it('edits the tags of a fact: a #word removed or added in the editor is a tag removed or added', async () => {
    const b = open()
    await b.waitFor('3 facts')
    await b.press('j', 'e')
    await b.waitFor('Deploys happen on Tuesdays #ops')
    for (let i = 0; i < 'ops'.length; i++) await b.press(KEYS.backspace)
    await b.press('release #ci', KEYS.enter)
    await b.waitFor('Updated fact')
    const next = (await store.listFacts('alice')).find(
      (f) => f.content === 'Deploys happen on Tuesdays' && !f.superseded_by,
    )
    assert.ok(next)
    assert.deepEqual(next.tags, ['release', 'ci'])
  })

  it('refuses a fact that is only tags', async () => {
    const b = open()
    await b.waitFor('3 facts')
    await b.press('n', '#office', KEYS.enter)
    await b.waitFor('A fact needs some text besides its #tags')
    assert.equal((await store.listFacts('alice')).length, 3)
  })

  it('adds a fact, and refuses an empty one without writing', async () => {
    const b = open()
    await b.waitFor('3 facts')
    await b.press('n', KEYS.enter)
    await b.waitFor('A fact needs some text')
    assert.equal((await store.listFacts('alice')).length, 3)
    await b.press('Lunch is at noon', KEYS.enter)
    await b.waitFor('Added fact')
    await b.waitFor('4 facts')
    assert.ok((await store.listFacts('alice')).some((f) => f.content === 'Lunch is at noon'))
  })

  it('switches agent from the agents view', async () => {
    await store.addFact('bob', {content: 'Bob likes tea', tags: []})
    const b = open()
    await b.waitFor('3 facts')
    await b.press('a')
    const agents = await b.waitFor('bob')
    assert.ok(agents.includes('alice'), agents)
    assert.match(agents, /bob +1 fact +0 checkpoints/, agents)
    assert.doesNotMatch(agents, /\b1 facts\b/, agents)
    await b.press('j', KEYS.enter)
    const frame = await b.waitFor('Bob likes tea')
    assert.ok(frame.includes('agent bob'), frame)
    assert.ok(!frame.includes('Prefers pnpm'), frame)
  })

  it('lists checkpoints and opens one with its state pretty-printed and its messages', async () => {
    await store.saveCheckpoint('alice', {
      state: {task: 'migrate db', step: 2},
      label: 'before lunch',
      messages: [{role: 'user', content: 'copy the schema first'}],
    })
    const b = open()
    await b.waitFor('3 facts')
    await b.press('c')
    await b.waitFor('before lunch')
    await b.press(KEYS.enter)
    const frame = await b.waitFor('"task": "migrate db"')
    assert.ok(frame.includes('"step": 2'), frame)
    assert.ok(frame.includes('1 message'), frame)
    assert.ok(frame.includes('Message, oldest first:'), frame)
    assert.ok(frame.includes('{"role":"user","content":"copy the schema first"}'), frame)
    await b.press(KEYS.escape)
    await b.waitFor('before lunch')
  })

  it('notices facts another process writes while it is open', async () => {
    const b = open(20)
    await b.waitFor('3 facts')
    // A separate store instance stands for another process: it shares nothing but the files.
    await new FileStore(home.home).addFact('alice', {content: 'Written elsewhere', tags: []})
    await b.waitFor('Written elsewhere')
    await b.waitFor('4 facts')
  })

  it('shows errors from the store instead of crashing', async () => {
    const b = open()
    await b.waitFor('3 facts')
    await b.press('e')
    await b.waitFor('Edit fact')
    // The fact under the cursor (the newest) is deleted elsewhere before the edit is saved.
    await new FileStore(home.home).deleteFact('alice', (await store.listFacts('alice')).at(-1)!.id)
    await b.press(' again', KEYS.enter)
    const frame = await b.waitFor('was deleted')
    assert.ok(frame.includes('Edit fact'), frame)
  })
})
