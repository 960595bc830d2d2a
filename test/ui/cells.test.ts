import assert from 'node:assert/strict'

import {cellWidth, fit, fitSpans, padCells, wrapCells} from '../../src/ui/cells.js'

describe('browser text measured in terminal cells', () => {
  it('counts a wide character or an emoji as two cells and a combining mark as none', () => {
    assert.equal(cellWidth('abc'), 3)
    assert.equal(cellWidth('漢字'), 4)
    assert.equal(cellWidth('🎉'), 2)
    assert.equal(cellWidth('cafe\u0301'), 4)
    // Control characters are shown as pictures first (src/cli/inert-text.ts): one cell each.
    assert.equal(cellWidth('␛[31m'), 5)
  })

  it('cuts text to the width with an ellipsis, counting cells, and leaves text that fits alone', () => {
    assert.equal(fit('short', 5), 'short')
    assert.equal(fit('longer text', 8), 'longer …')
    assert.equal(fit('漢字漢字', 8), '漢字漢字')
    assert.equal(fit('漢字漢字', 7), '漢字漢…')
    // Two cells do not fit where one is left: the line ends a cell short rather than overflow.
    assert.equal(fit('漢字漢字', 6), '漢字…')
    assert.equal(fit('🎉🎉🎉', 4), '🎉…')
  })

  it('never separates a letter from its accent or splits an emoji sequence', () => {
    assert.equal(fit('cafe\u0301s', 4), 'caf…')
    assert.equal(fit('cafe\u0301s', 5), 'cafe\u0301s')
    assert.equal(fit('ab👍🏽cd', 4), 'ab…')
    assert.equal(fit('ab👍🏽cd', 5), 'ab👍🏽…')
  })

  it('cuts styled spans where the width runs out, keeping the style of each', () => {
    const spans = fitSpans(
      [
        {text: '▸ ', color: 'cyan'},
        {text: 'deploys', bold: true},
        {text: ' on Tuesdays', color: 'green'},
      ],
      12,
    )
    assert.deepEqual(spans, [
      {text: '▸ ', color: 'cyan'},
      {text: 'deploys', bold: true},
      {text: ' o…', color: 'green'},
    ])
    assert.deepEqual(fitSpans([{text: 'abc'}, {text: 'def', bold: true}], 4), [{text: 'abc'}, {text: '…', bold: true}])
  })

  it('pads to a width in cells', () => {
    assert.equal(padCells('漢', 4), '漢  ')
    assert.equal(padCells('abcdef', 4), 'abc…')
  })

  it('wraps between words, and inside a word longer than the line', () => {
    assert.deepEqual(wrapCells('one two three four', 9), ['one two', 'three', 'four'])
    assert.deepEqual(wrapCells('abcdefghij', 4), ['abcd', 'efgh', 'ij'])
    assert.deepEqual(wrapCells('漢字漢字漢', 4), ['漢字', '漢字', '漢'])
    for (const line of wrapCells('長い事実'.repeat(30), 61)) assert.ok(cellWidth(line) <= 61, line)
    assert.deepEqual(wrapCells('', 10), [''])
  })
})
