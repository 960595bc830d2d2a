/**
 * One line of text being typed, with a cursor, and the readline keys people's fingers expect
 * of it (the editor and the search box both use these): Ctrl-A/E start and end, Ctrl-U and
 * Ctrl-K delete to the start and to the end, Ctrl-W the word before the cursor, Alt-B/F move
 * by words. The cursor is a string index that always sits between characters a reader sees as
 * one (a letter and its accent, an emoji and its modifiers).
 */
export interface Line {
  text: string
  cursor: number
}

export type Edit =
  | {type: 'insert'; text: string}
  | {type: 'erase-back'}
  | {type: 'erase-forward'}
  | {type: 'left'}
  | {type: 'right'}
  | {type: 'start'}
  | {type: 'end'}
  | {type: 'word-left'}
  | {type: 'word-right'}
  /** Ctrl-U: everything before the cursor. */
  | {type: 'kill-start'}
  /** Ctrl-K: everything from the cursor on. */
  | {type: 'kill-end'}
  /** Ctrl-W: the word before the cursor and the spaces after it, as readline's unix-word-rubout. */
  | {type: 'kill-word'}

const graphemes = new Intl.Segmenter(undefined, {granularity: 'grapheme'})

export function lineOf(text: string): Line {
  return {text, cursor: text.length}
}

function previous(text: string, at: number): number {
  let last = 0
  for (const {index} of graphemes.segment(text)) {
    if (index >= at) break
    last = index
  }
  return last
}

function next(text: string, at: number): number {
  for (const {index, segment} of graphemes.segment(text)) if (index >= at) return index + segment.length
  return text.length
}

const WORD = /[\p{L}\p{N}\p{M}_]/u

/** Readline's backward-word: over what is not a word, then over the word. */
function wordStart(text: string, at: number): number {
  let i = at
  while (i > 0 && !WORD.test(text[i - 1]!)) i--
  while (i > 0 && WORD.test(text[i - 1]!)) i--
  return i
}

function wordEnd(text: string, at: number): number {
  let i = at
  while (i < text.length && !WORD.test(text[i]!)) i++
  while (i < text.length && WORD.test(text[i]!)) i++
  return i
}

/** unix-word-rubout: words are what white space separates. */
function spaceWordStart(text: string, at: number): number {
  let i = at
  while (i > 0 && /\s/.test(text[i - 1]!)) i--
  while (i > 0 && !/\s/.test(text[i - 1]!)) i--
  return i
}

function cut(line: Line, from: number, to: number, cursor: number): Line {
  return {text: line.text.slice(0, from) + line.text.slice(to), cursor}
}

export function edit(line: Line, e: Edit): Line {
  const {text, cursor} = line
  switch (e.type) {
    case 'insert':
      return {text: text.slice(0, cursor) + e.text + text.slice(cursor), cursor: cursor + e.text.length}
    case 'erase-back': {
      const at = previous(text, cursor)
      return cut(line, at, cursor, at)
    }
    case 'erase-forward':
      return cut(line, cursor, next(text, cursor), cursor)
    case 'left':
      return {text, cursor: previous(text, cursor)}
    case 'right':
      return {text, cursor: next(text, cursor)}
    case 'start':
      return {text, cursor: 0}
    case 'end':
      return {text, cursor: text.length}
    case 'word-left':
      return {text, cursor: wordStart(text, cursor)}
    case 'word-right':
      return {text, cursor: wordEnd(text, cursor)}
    case 'kill-start':
      return cut(line, 0, cursor, 0)
    case 'kill-end':
      return cut(line, cursor, text.length, cursor)
    case 'kill-word': {
      const at = spaceWordStart(text, cursor)
      return cut(line, at, cursor, at)
    }
  }
}

/** The line split at its cursor, for drawing the cursor as a cell of its own. */
export function aroundCursor(line: Line): {before: string; under: string; after: string} {
  const end = next(line.text, line.cursor)
  return {
    before: line.text.slice(0, line.cursor),
    under: line.text.slice(line.cursor, end),
    after: line.text.slice(end),
  }
}
