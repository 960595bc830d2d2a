import type {Key} from 'ink'

import {pageRows} from './layout.js'
import type {Edit} from './line-edit.js'
import type {Action, State} from './state.js'

/** Printable text from a key press (or a paste); control keys yield nothing. */
function text(input: string, key: Key): string | undefined {
  if (key.ctrl || key.meta || key.return || key.escape || key.tab || key.backspace || key.delete) return undefined
  // eslint-disable-next-line no-control-regex -- control characters never belong in a fact or a query
  const printable = input.replace(/[\u0000-\u001f\u007f]/g, '')
  return printable === '' ? undefined : printable
}

/** An edit that is a key of its own, not typed text. */
type KeyEdit = Exclude<Edit['type'], 'insert'>

const CTRL_EDITS: Record<string, KeyEdit> = {
  a: 'start',
  e: 'end',
  b: 'left',
  f: 'right',
  d: 'erase-forward',
  u: 'kill-start',
  k: 'kill-end',
  w: 'kill-word',
}

const ALT_EDITS: Record<string, KeyEdit> = {b: 'word-left', f: 'word-right'}

/** The readline keys of a line being typed (src/ui/line-edit.ts), and the text typed into it. */
function lineKey(input: string, key: Key): Action | undefined {
  const edit = (type: KeyEdit): Action => ({type: 'line', edit: {type}})
  // Most terminals send DEL for Backspace, which ink names delete; Alt-Backspace comes as meta with it.
  if ((key.backspace || key.delete) && key.meta) return edit('kill-word')
  if (key.backspace || key.delete) return edit('erase-back')
  if (key.leftArrow) return edit('left')
  if (key.rightArrow) return edit('right')
  if (key.home) return edit('start')
  if (key.end) return edit('end')
  const ctrl = key.ctrl ? CTRL_EDITS[input] : undefined
  if (ctrl) return edit(ctrl)
  const alt = key.meta && !key.escape ? ALT_EDITS[input] : undefined
  if (alt) return edit(alt)
  const typed = text(input, key)
  return typed === undefined ? undefined : {type: 'line', edit: {type: 'insert', text: typed}}
}

function vertical(state: State, input: string, key: Key, letters: boolean): Action | undefined {
  if (key.upArrow || (letters && input === 'k')) return {type: 'move', by: -1}
  if (key.downArrow || (letters && input === 'j')) return {type: 'move', by: 1}
  if (key.pageUp) return {type: 'move', by: -pageRows(state.view)}
  if (key.pageDown) return {type: 'move', by: pageRows(state.view)}
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
    return lineKey(input, key)
  }

  if (screen.name === 'confirm-delete' || screen.name === 'confirm-create') {
    if (input === 'y' || input === 'Y') return {type: 'confirm'}
    if (input === 'n' || input === 'N' || key.escape || input === 'q') return {type: 'back'}
    return undefined
  }

  if (screen.name === 'facts' && state.typing) {
    if (key.escape || key.return) return {type: 'stop-typing'}
    return vertical(state, input, key, false) ?? lineKey(input, key)
  }

  // Ctrl-A is not `a`, nor Alt-D `d`: a command letter is the letter alone.
  const letter = key.ctrl || key.meta ? '' : input
  const move = vertical(state, letter, key, true)
  if (move) return move
  if (key.home || letter === 'g') return {type: 'move-to', end: 'first'}
  if (key.end || letter === 'G') return {type: 'move-to', end: 'last'}
  if (key.return || (key.rightArrow && screen.name !== 'fact' && screen.name !== 'checkpoint')) return {type: 'open'}
  if (key.escape || key.leftArrow) return {type: 'back'}
  return commandLetter(screen.name, letter)
}

function commandLetter(screen: State['screen']['name'], input: string): Action | undefined {
  if (input === 'q') return screen === 'facts' ? {type: 'quit'} : {type: 'back'}
  if (input === '/') return {type: 'start-typing'}
  if (input === 'a') return {type: 'show', screen: 'agents'}
  if (input === 'c') return {type: 'show', screen: 'checkpoints'}
  if (input === 'r') return {type: 'refresh'}
  if (screen === 'facts' || screen === 'fact') {
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

/**
 * The key flags of one plain character: Enter, Backspace, Tab and Ctrl-letter keys can arrive
 * inside a run of text.
 */
function keyOf(char: string, like: Key): [string, Key] {
  const code = char.charCodeAt(0)
  const named = {
    ...like,
    return: char === '\r' || char === '\n',
    backspace: char === '\u007f' || char === '\b',
    tab: char === '\t',
  }
  if (named.return || named.backspace || named.tab || code < 1 || code > 26) return [char, named]
  return [String.fromCharCode(code + 96), {...named, ctrl: true}]
}

/**
 * ink delivers keys typed faster than it reads them (or pasted, or sent by tmux) as one run of
 * text: "/dep" rather than "/", "d", "e", "p". Each character is a key press of its own here,
 * so a command key followed by text does what it would have done typed slowly.
 */
function presses(input: string, key: Key): [string, Key][] {
  const chars = [...input]
  if (chars.length <= 1 || key.escape || key.ctrl || key.meta || input.startsWith('\u001B')) return [[input, key]]
  return chars.map((c) => keyOf(c, key))
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
