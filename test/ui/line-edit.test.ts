import assert from 'node:assert/strict'

import {edit, lineOf, type Edit, type Line} from '../../src/ui/line-edit.js'

function run(line: Line, ...edits: Edit['type'][]): Line {
  return edits.reduce((l, type) => edit(l, type === 'insert' ? {type, text: ''} : ({type} as Edit)), line)
}

/** `text` with the cursor where `|` is. */
function at(marked: string): Line {
  return {text: marked.replace('|', ''), cursor: marked.indexOf('|')}
}

function shown(line: Line): string {
  return `${line.text.slice(0, line.cursor)}|${line.text.slice(line.cursor)}`
}

describe('the line being typed (readline keys)', () => {
  it('inserts at the cursor', () => {
    assert.equal(shown(edit(at('one |three'), {type: 'insert', text: 'two '})), 'one two |three')
  })

  it('Ctrl-A and Ctrl-E go to the start and the end', () => {
    assert.equal(shown(run(lineOf('deploy steps'), 'start')), '|deploy steps')
    assert.equal(shown(run(at('de|ploy steps'), 'end')), 'deploy steps|')
  })

  it('Ctrl-U deletes to the start of the line, Ctrl-K to its end', () => {
    assert.equal(shown(run(at('one two| three'), 'kill-start')), '| three')
    assert.equal(shown(run(at('one two| three'), 'kill-end')), 'one two|')
  })

  it('Ctrl-W deletes the word before the cursor and the spaces after it, as readline does', () => {
    assert.equal(shown(run(lineOf('one two three'), 'kill-word')), 'one two |')
    assert.equal(shown(run(lineOf('one two   '), 'kill-word')), 'one |')
    assert.equal(shown(run(at('one two| three'), 'kill-word')), 'one | three')
    // Words are what white space separates: a path or #tag goes whole.
    assert.equal(shown(run(lineOf('see docs/guide.md'), 'kill-word')), 'see |')
    assert.equal(shown(run(at('|one'), 'kill-word')), '|one')
  })

  it('Alt-B and Alt-F move by words', () => {
    assert.equal(shown(run(lineOf('one two-three'), 'word-left')), 'one two-|three')
    assert.equal(shown(run(lineOf('one two-three'), 'word-left', 'word-left', 'word-left')), '|one two-three')
    assert.equal(shown(run(at('|one two'), 'word-right')), 'one| two')
    assert.equal(shown(run(at('|one two'), 'word-right', 'word-right', 'word-right')), 'one two|')
  })

  it('arrows and Backspace step over a letter with its accent and an emoji with its modifier as one', () => {
    assert.equal(shown(run(lineOf('cafe\u0301'), 'erase-back')), 'caf|')
    assert.equal(shown(run(lineOf('ok 👍🏽'), 'left')), 'ok |👍🏽')
    assert.equal(shown(run(lineOf('ok 👍🏽'), 'erase-back')), 'ok |')
    assert.equal(shown(run(at('|👍🏽 ok'), 'right')), '👍🏽| ok')
    assert.equal(shown(run(at('|👍🏽 ok'), 'erase-forward')), '| ok')
    assert.equal(shown(run(at('|x'), 'left', 'erase-back')), '|x')
    assert.equal(shown(run(at('x|'), 'right', 'erase-forward')), 'x|')
  })
})
