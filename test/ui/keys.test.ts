import assert from 'node:assert/strict'

import type {Key} from 'ink'

import type {FactRow} from '../../src/ui/backend.js'
import {withKeys} from '../../src/ui/keys.js'
import {initialState, reducer, type State} from '../../src/ui/state.js'

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

function loaded(): State {
  return reducer(initialState('alice'), {type: 'facts-loaded', agent: 'alice', query: '', facts})
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
    const stale = reducer(s, {type: 'facts-loaded', agent: 'alice', query: 'ne', facts: []})
    assert.equal(stale.facts.length, 3)
    const other = reducer(s, {type: 'facts-loaded', agent: 'bob', query: 'new', facts: []})
    assert.equal(other.facts.length, 3)
  })

  it('keeps the cursor on the same fact when others are added above it', () => {
    let s = press(loaded(), 'j')
    const fresh = {...facts[0]!, id: 'z'.repeat(26), content: 'newer'}
    s = reducer(s, {type: 'facts-loaded', agent: 'alice', query: '', facts: [fresh, ...facts]})
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
    assert.deepEqual(s.screen, {name: 'edit', id: facts[0]!.id, draft: 'fact a', from: 'facts'})
    s = press(press(s, '', {backspace: true}), 'z', {})
    s = press(s, '', {return: true})
    assert.deepEqual(s.pending, {kind: 'update', id: facts[0]!.id, content: 'fact z', tags: []})
    assert.equal(press(s, 'q').quit, false)
    s = reducer(s, {type: 'written', notice: 'Updated'})
    assert.equal(s.pending, undefined)
    assert.equal(s.screen.name, 'facts')
    assert.equal(s.notice, 'Updated')
  })

  it('control characters never reach a fact', () => {
    const s = press(press(loaded(), 'n'), 'a\u0007b')
    assert.deepEqual(s.screen, {name: 'edit', id: undefined, draft: 'ab', from: 'facts'})
  })
})
