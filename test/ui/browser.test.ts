import assert from 'node:assert/strict'

import {FileStore} from '../../src/store/file/file-store.js'
import {SEARCH_LIMIT} from '../../src/ui/backend.js'
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
    const {facts: ranked, search} = await b.backend.facts('alice', 'reviewer', {offset: 0, limit: SEARCH_LIMIT})
    assert.equal(ranked[0]?.content, 'Rollbacks need a second reviewer')
    const matches = `${search!.matches} ${search!.matches === 1 ? 'match' : 'matches'} of 4 facts`
    const frame = await b.waitFor(
      (f) => f.includes('/ reviewer') && f.includes(`agent alice · ${matches}`),
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
    // The turn that came only as context of its thread is not counted as a match.
    const frame = await b.waitFor(
      (f) => f.includes('/ heater') && f.includes('1 match (+1 from their threads) of 5 facts'),
      'the heater results',
    )
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
      (f) => f.includes('/ st') && f.includes('1 match of 3 facts'),
      'the facts that have a word starting with "st"',
    )
    assert.match(lineOf(frame, 'staging'), /▸/)
    await b.press('a', 'g', 'i', 'n', 'g', ' ', 'd')
    // "d" is being typed: it starts "database" and "Deploys". The fact matching both words leads.
    const both = await b.waitFor(
      (f) => f.includes('/ staging d') && f.includes('2 matches of 3 facts'),
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

describe('mem browse on an agent that has stored nothing (ink app over a real store)', () => {
  let home: ReturnType<typeof tempHome>
  let ui: BrowserHarness | undefined
  let store: FileStore

  beforeEach(async () => {
    home = tempHome()
    store = new FileStore(home.home)
    await store.addFact('alice', {content: 'Prefers pnpm as package manager', tags: []})
    await store.saveCheckpoint('team', {state: {sprint: 4}})
  })
  afterEach(() => {
    ui?.unmount()
    ui = undefined
    home.cleanup()
  })

  it('names the agents there are, as the CLI does, and creates a typo only when asked to', async () => {
    ui = renderBrowser({home: home.home, agent: 'alcie', named: 'alcie'})
    const frame = await ui.waitFor('no agent alcie; known agents: alice, team')
    assert.match(frame, /Press a to switch to another agent, or n to create agent alcie with a first fact\./)
    assert.ok(!frame.includes('No facts yet'), frame)
    await ui.press('n')
    await ui.waitFor('Create agent alcie?')
    await ui.press('n')
    await ui.waitFor('no agent alcie; known agents')
    await ui.press('n', KEYS.escape)
    await ui.waitFor('no agent alcie; known agents')
    assert.deepEqual((await store.listAgents()).sort(), ['alice', 'team'], 'nothing written')
    await ui.press('n', 'y')
    await ui.waitFor('New fact for agent alcie')
    assert.deepEqual((await store.listAgents()).sort(), ['alice', 'team'], 'nothing written until the fact is saved')
    await ui.press('Lunch is at noon', KEYS.enter)
    await ui.waitFor('Added fact')
    await ui.waitFor((f) => f.includes('agent alcie · 1 fact') && f.includes('Lunch is at noon'), 'the new agent')
    assert.deepEqual(
      (await store.listFacts('alcie')).map((f) => f.content),
      ['Lunch is at noon'],
    )
  })

  it('says "No facts yet" for an agent that exists with no facts, and adds without asking', async () => {
    ui = renderBrowser({home: home.home, agent: 'team', named: 'team'})
    const frame = await ui.waitFor('No facts yet. Press n to add one.')
    assert.ok(!frame.includes('no agent'), frame)
    await ui.press('n')
    await ui.waitFor('New fact for agent team')
  })

  it('asks before creating the default agent too, though it was not named', async () => {
    ui = renderBrowser({home: home.home, agent: 'default'})
    const frame = await ui.waitFor('No facts yet. Press n to add one.')
    assert.ok(!frame.includes('no agent'), frame)
    await ui.press('n')
    await ui.waitFor('Create agent default?')
  })
})

describe('mem browse editor keys (ink app over a real store)', () => {
  let home: ReturnType<typeof tempHome>
  let ui: BrowserHarness | undefined

  beforeEach(async () => {
    home = tempHome()
    await new FileStore(home.home).addFact('alice', {content: 'Deploys happen on Tuesdays', tags: ['ops']})
  })
  afterEach(() => {
    ui?.unmount()
    ui = undefined
    home.cleanup()
  })

  it('saves what Ctrl-W, Ctrl-A, Ctrl-E, Ctrl-U, Ctrl-K and Alt-B made of the draft', async () => {
    ui = renderBrowser({home: home.home, agent: 'alice'})
    await ui.waitFor('1 fact')
    await ui.press('e')
    await ui.waitFor('Deploys happen on Tuesdays #ops')
    await ui.press(KEYS.ctrlW, KEYS.ctrlW, 'Fridays #ops', KEYS.ctrlA, 'Staging ', KEYS.ctrlE)
    await ui.waitFor('Staging Deploys happen on Fridays #ops')
    await ui.press(KEYS.altB, KEYS.altB, KEYS.ctrlK, 'Mondays', KEYS.enter)
    await ui.waitFor('Updated fact')
    const live = (await ui.store.listFacts('alice')).filter((f) => !f.superseded_by && !f.deleted_at)
    assert.deepEqual(
      live.map((f) => f.content),
      ['Staging Deploys happen on Mondays'],
    )
    await ui.press('n', 'throw away', KEYS.ctrlU, 'kept', KEYS.enter)
    await ui.waitFor('Added fact')
    assert.ok((await ui.store.listFacts('alice')).some((f) => f.content === 'kept'))
  })

  it('edits the search box with the same keys', async () => {
    ui = renderBrowser({home: home.home, agent: 'alice'})
    await ui.waitFor('1 fact')
    await ui.press('/', 'zebra')
    await ui.waitFor('No facts found for "zebra"')
    await ui.press(' tuesdays', KEYS.ctrlA, KEYS.altF, KEYS.ctrlU)
    await ui.waitFor(
      (f) => f.includes('/  tuesdays') && f.includes('1 match of 1 fact'),
      'the search without its first word',
    )
    await ui.press(KEYS.ctrlE, KEYS.ctrlW, 'zebra')
    await ui.waitFor('No facts found for " zebra"')
  })
})
