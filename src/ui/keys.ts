import type {Key} from 'ink'

import type {Action, State} from './state.js'

/** Printable text from a key press (or a paste); control keys yield nothing. */
function text(input: string, key: Key): string | undefined {
  if (key.ctrl || key.meta || key.return || key.escape || key.tab || key.backspace || key.delete) return undefined
  // eslint-disable-next-line no-control-regex -- control characters never belong in a fact or a query
  const printable = input.replace(/[\u0000-\u001f\u007f]/g, '')
  return printable === '' ? undefined : printable
}

function vertical(input: string, key: Key, letters: boolean): Action | undefined {
  if (key.upArrow || (letters && input === 'k')) return {type: 'move', by: -1}
  if (key.downArrow || (letters && input === 'j')) return {type: 'move', by: 1}
  if (key.pageUp) return {type: 'move', by: -10}
  if (key.pageDown) return {type: 'move', by: 10}
  return undefined
}

/**
 * What a key press means on the current screen. Kept apart from the components so the whole
 * keyboard map reads in one place and tests can check it without rendering.
 */
export function keyToAction(state: State, input: string, key: Key): Action | undefined {
  const {screen} = state
  if (key.ctrl && input === 'c') return {type: 'interrupt'}
  if (state.pending) return undefined

  if (screen.name === 'edit') {
    if (key.escape) return {type: 'back'}
    if (key.return) return {type: 'open'}
    if (key.backspace || key.delete) return {type: 'erase'}
    const typed = text(input, key)
    return typed === undefined ? undefined : {type: 'type', text: typed}
  }

  if (screen.name === 'confirm-delete') {
    if (input === 'y' || input === 'Y') return {type: 'confirm'}
    if (input === 'n' || input === 'N' || key.escape || input === 'q') return {type: 'back'}
    return undefined
  }

  if (screen.name === 'facts' && state.typing) {
    if (key.escape || key.return) return {type: 'stop-typing'}
    if (key.backspace || key.delete) return {type: 'erase'}
    const move = vertical(input, key, false)
    if (move) return move
    const typed = text(input, key)
    return typed === undefined ? undefined : {type: 'type', text: typed}
  }

  const move = vertical(input, key, true)
  if (move) return move
  if (key.return || (key.rightArrow && screen.name !== 'fact' && screen.name !== 'checkpoint')) return {type: 'open'}
  if (input === 'q') return screen.name === 'facts' ? {type: 'quit'} : {type: 'back'}
  if (key.escape || key.leftArrow) return {type: 'back'}
  if (input === '/') return {type: 'start-typing'}
  if (input === 'a') return {type: 'show', screen: 'agents'}
  if (input === 'c') return {type: 'show', screen: 'checkpoints'}
  if (input === 'r') return {type: 'refresh'}
  if (screen.name === 'facts' || screen.name === 'fact') {
    if (input === 'n') return {type: 'add'}
    if (input === 'e') return {type: 'edit'}
    if (input === 'd') return {type: 'ask-delete'}
  }
  return undefined
}

export interface KeyPress {
  type: 'key'
  input: string
  key: Key
}

/** The key flags of one plain character: Enter, Backspace and Tab can arrive inside a run of text. */
function keyOf(char: string, like: Key): Key {
  return {
    ...like,
    return: char === '\r' || char === '\n',
    backspace: char === '\u007f' || char === '\b',
    tab: char === '\t',
  }
}

/**
 * ink delivers keys typed faster than it reads them (or pasted, or sent by tmux) as one run of
 * text: "/dep" rather than "/", "d", "e", "p". Each character is a key press of its own here,
 * so a command key followed by text does what it would have done typed slowly.
 */
function presses(input: string, key: Key): [string, Key][] {
  const chars = [...input]
  if (chars.length <= 1 || key.escape || key.ctrl || key.meta || input.startsWith('\u001B')) return [[input, key]]
  return chars.map((c) => [c, keyOf(c, key)])
}

/**
 * Applies a key press to the state it lands on. Doing this inside the reducer, not in the input
 * handler, means each key sees the screen the previous one left, however fast they come.
 */
export function withKeys(
  reduce: (state: State, action: Action) => State,
): (state: State, action: Action | KeyPress) => State {
  return (state, action) => {
    if (action.type !== 'key') return reduce(state, action)
    let next = state
    for (const [input, key] of presses(action.input, action.key)) {
      const mapped = keyToAction(next, input, key)
      if (mapped) next = reduce(next, mapped)
    }
    return next
  }
}
