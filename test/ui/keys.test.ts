import assert from 'node:assert/strict'

import type {Key} from 'ink'

import type {FactRow, FactsPage} from '../../src/ui/backend.js'
import {withKeys} from '../../src/ui/keys.js'
import {pageRows} from '../../src/ui/layout.js'
import {initialState, pageOf, reducer, selectedFact, type State} from '../../src/ui/state.js'

const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
}

const reduce = withKeys(reducer)

function press(state: State, input: string, key: Partial<Key> = {}): State {
  return reduce(state, {type: 'key', input, key: {...NO_KEY, ...key}})
}

const facts: FactRow[] = ['a', 'b', 'c'].map((id) => ({
  id: id.repeat(26),
  content: `fact ${id}`,
  tags: [],
  created_at: '2026-01-01T00:00:00.000Z',
}))

function page(rows: FactRow[], more: Partial<FactsPage> = {}): FactsPage {
  return {facts: rows, offset: 0, count: rows.length, live: rows.length, ...more}
}

function loaded(): State {
  return reducer(initialState('alice'), {type: 'facts-loaded', agent: 'alice', query: '', ...page(facts)})
}

describe('browser keys and state', () => {
  it('moves within the list and never past its ends', () => {
    let s = loaded()
    s = press(s, 'k')
    assert.equal(s.selected, 0)
    s = press(press(press(press(s, 'j'), '', {downArrow: true}), 'j'), 'j')
    assert.equal(s.selected, 2)
    s = press(s, '', {upArrow: true})
    assert.equal(s.selected, 1)
  })

  it('q and Esc leave from the list; Esc first clears a search', () => {
    assert.equal(press(loaded(), 'q').quit, true)
    assert.equal(press(loaded(), '', {escape: true}).quit, true)
    let s = press(loaded(), '/deploy')
    assert.equal(s.query, 'deploy')
    s = press(s, '', {escape: true})
    assert.equal(s.typing, false)
    s = press(s, '', {escape: true})
    assert.equal(s.query, '')
    assert.equal(s.quit, false)
  })

  it('command letters are text while typing a search', () => {
    const s = press(loaded(), '/quit adding')
    assert.equal(s.query, 'quit adding')
    assert.equal(s.quit, false)
    assert.equal(s.screen.name, 'facts')
  })

  it('backspace in a burst erases, Enter in a burst stops typing', () => {
    const s = press(loaded(), '/dex\u007Fp\r')
    assert.equal(s.query, 'dep')
    assert.equal(s.typing, false)
  })

  it('results for an older query or another agent are dropped', () => {
    const s = press(loaded(), '/new')
    const stale = reducer(s, {type: 'facts-loaded', agent: 'alice', query: 'ne', ...page([])})
    assert.equal(stale.facts.length, 3)
    const other = reducer(s, {type: 'facts-loaded', agent: 'bob', query: 'new', ...page([])})
    assert.equal(other.facts.length, 3)
  })

  it('keeps the cursor on the same fact when others are added above it', () => {
    let s = press(loaded(), 'j')
    const fresh = {...facts[0]!, id: 'z'.repeat(26), content: 'newer'}
    s = reducer(s, {type: 'facts-loaded', agent: 'alice', query: '', ...page([fresh, ...facts])})
    assert.equal(s.facts[s.selected]?.id, facts[1]!.id)
  })

  it('delete asks first; only y turns it into a write', () => {
    let s = press(loaded(), 'd')
    assert.equal(s.screen.name, 'confirm-delete')
    assert.equal(press(s, 'x').pending, undefined)
    assert.equal(press(s, 'n').screen.name, 'facts')
    s = press(s, 'y')
    assert.deepEqual(s.pending, {kind: 'delete', id: facts[0]!.id})
  })

  it('edit starts from the fact text and saves an update; keys wait while a write runs', () => {
    let s = press(loaded(), 'e')
    assert.deepEqual(s.screen, {name: 'edit', id: facts[0]!.id, draft: {text: 'fact a', cursor: 6}, from: 'facts'})
    s = press(press(s, '', {backspace: true}), 'z', {})
    s = press(s, '', {return: true})
    assert.deepEqual(s.pending, {kind: 'update', id: facts[0]!.id, content: 'fact z', tags: []})
    assert.equal(press(s, 'q').quit, false)
    s = reducer(s, {type: 'written', notice: 'Updated'})
    assert.equal(s.pending, undefined)
    assert.equal(s.screen.name, 'facts')
    assert.equal(s.notice, 'Updated')
  })

  it('a command letter is the letter alone: Ctrl or Alt with it does nothing on the list', () => {
    assert.equal(press(loaded(), 'a', {ctrl: true}).screen.name, 'facts')
    assert.equal(press(loaded(), 'd', {meta: true}).screen.name, 'facts')
    assert.equal(press(loaded(), 'j', {ctrl: true}).selected, 0)
    assert.equal(press(loaded(), 'a').screen.name, 'agents')
  })

  it('control characters never reach a fact', () => {
    const s = press(press(loaded(), 'n'), 'a\u0007b')
    assert.deepEqual(s.screen, {name: 'edit', id: undefined, draft: {text: 'ab', cursor: 2}, from: 'facts'})
  })
})

describe('browser keys: the editor and the search box take readline keys', () => {
  function draft(s: State): string {
    assert.equal(s.screen.name, 'edit')
    const {text, cursor} = (s.screen as Extract<State['screen'], {name: 'edit'}>).draft
    return `${text.slice(0, cursor)}|${text.slice(cursor)}`
  }

  it('Ctrl-W, Ctrl-A, Ctrl-E, Ctrl-U and Ctrl-K edit the draft', () => {
    let s = press(press(loaded(), 'n'), 'one two three')
    s = press(s, 'w', {ctrl: true})
    assert.equal(draft(s), 'one two |')
    s = press(press(s, 'a', {ctrl: true}), 'X ')
    assert.equal(draft(s), 'X |one two ')
    s = press(press(s, 'e', {ctrl: true}), 'end')
    assert.equal(draft(s), 'X one two end|')
    s = press(press(press(s, 'b', {meta: true}), '', {leftArrow: true}), 'k', {ctrl: true})
    assert.equal(draft(s), 'X one two|')
    s = press(s, 'u', {ctrl: true})
    assert.equal(draft(s), '|')
  })

  it('Alt-B/F, the arrows, Home and End move the cursor; typed text goes in at it', () => {
    let s = press(press(loaded(), 'n'), 'deploy on Tuesdays')
    s = press(press(s, 'b', {meta: true}), 'b', {meta: true})
    assert.equal(draft(s), 'deploy |on Tuesdays')
    s = press(s, 'f', {meta: true})
    assert.equal(draft(s), 'deploy on| Tuesdays')
    s = press(press(s, '', {home: true}), '', {rightArrow: true})
    assert.equal(draft(s), 'd|eploy on Tuesdays')
    s = press(press(s, '', {end: true}), '', {backspace: true})
    assert.equal(draft(s), 'deploy on Tuesday|')
    // Alt-Backspace deletes the word before the cursor too.
    s = press(s, '', {delete: true, meta: true})
    assert.equal(draft(s), 'deploy on |')
  })

  it('a control key inside a burst of typed text acts as that key', () => {
    const s = press(press(loaded(), 'n'), 'gone\u0015kept')
    assert.equal(draft(s), 'kept|')
  })

  it('edits the search being typed the same way, and the list goes back to its first row', () => {
    let s = press(press(loaded(), 'j'), '/deploy steps')
    assert.equal(s.query, 'deploy steps')
    s = press(s, 'w', {ctrl: true})
    assert.equal(s.query, 'deploy ')
    s = press(press(s, 'a', {ctrl: true}), 'old ')
    assert.equal(s.query, 'old deploy ')
    assert.equal(s.queryCursor, 4)
    s = press(s, 'k', {ctrl: true})
    assert.equal(s.query, 'old ')
    s = press(s, 'u', {ctrl: true})
    assert.equal(s.query, '')
    assert.equal(s.selected, 0)
    assert.equal(s.typing, true)
  })
})

describe('browser keys: a long list', () => {
  const many = 5001
  const row = (i: number): FactRow => ({
    id: String(many - i).padStart(26, '0'),
    content: `fact ${i}`,
    tags: [],
    created_at: '2026-01-01T00:00:00.000Z',
  })

  /** The page the browser asks for, loaded, as the backend would answer it. */
  function load(s: State): State {
    const {offset, limit} = pageOf(s)
    const rows = Array.from({length: Math.min(limit, many - offset)}, (_, i) => row(offset + i))
    return reducer(s, {
      type: 'facts-loaded',
      agent: 'alice',
      query: '',
      ...page(rows, {offset, count: many, live: many}),
    })
  }

  it('PgDn and PgUp move a screenful, End and Home to the last and first row, loading the rows around the cursor', () => {
    let s = load(initialState('alice', {columns: 80, rows: 24}))
    assert.equal(s.count, many)
    s = press(s, '', {pageDown: true})
    assert.equal(s.selected, pageRows(s.view))
    s = press(s, '', {end: true})
    assert.equal(s.selected, many - 1)
    assert.equal(selectedFact(s), undefined, 'the last rows are not loaded until their page arrives')
    s = load(s)
    assert.equal(selectedFact(s)?.content, `fact ${many - 1}`)
    s = press(s, '', {pageUp: true})
    assert.equal(s.selected, many - 1 - pageRows(s.view))
    s = press(s, '', {home: true})
    assert.equal(s.selected, 0)
    s = load(s)
    assert.equal(selectedFact(s)?.content, 'fact 0')
  })

  it('drops a page that arrives after the cursor has moved away from it', () => {
    let s = load(initialState('alice', {columns: 80, rows: 24}))
    const first = pageOf(s)
    s = press(s, '', {end: true})
    const late = reducer(s, {
      type: 'facts-loaded',
      agent: 'alice',
      query: '',
      ...page(
        Array.from({length: first.limit}, (_, i) => row(i)),
        {offset: first.offset, count: many, live: many},
      ),
    })
    assert.equal(late, s)
  })
})

describe('browser keys: an agent that has stored nothing', () => {
  function unknown(): State {
    return reducer(initialState('alcie', undefined, 'alcie'), {
      type: 'facts-loaded',
      agent: 'alcie',
      query: '',
      ...page([], {unknown: 'no agent alcie; known agents: alice, team'}),
    })
  }

  it('n asks before creating the agent; n or Esc cancels, y opens the editor', () => {
    let s = press(unknown(), 'n')
    assert.equal(s.screen.name, 'confirm-create')
    assert.equal(press(s, 'n').screen.name, 'facts')
    assert.equal(press(s, '', {escape: true}).screen.name, 'facts')
    assert.equal(press(s, 'x').screen.name, 'confirm-create')
    s = press(s, 'y')
    assert.deepEqual(s.screen, {name: 'edit', id: undefined, draft: {text: '', cursor: 0}, from: 'facts'})
    assert.equal(s.pending, undefined)
  })

  it('n does nothing before the first rows say whether the agent exists', () => {
    const s = press(initialState('alcie', undefined, 'alcie'), 'n')
    assert.equal(s.screen.name, 'facts')
  })

  it('an agent that exists opens the editor at once', () => {
    assert.equal(press(loaded(), 'n').screen.name, 'edit')
  })
})
