import assert from 'node:assert/strict'

import fc from 'fast-check'

import {jsonPieces} from '../../src/cli/json-pieces.js'

function pieces(value: unknown): string[] {
  return [...jsonPieces(value)]
}

describe('jsonPieces', () => {
  it('writes, piece by piece, the text JSON.stringify writes, whatever the value', () => {
    // Beside JSON itself: what a payload might carry by mistake, for which the text must not change either.
    const holed = [1, 2, 3]
    delete holed[1]
    const odd = fc.constantFrom(
      undefined,
      new Date(0),
      {toJSON: () => 'mine'},
      holed,
      () => 1,
      Symbol('s'),
      -0,
      Object('boxed'),
    )
    const value = fc.letrec((tie) => ({
      value: fc.oneof({depthSize: 'small'}, fc.jsonValue(), odd, tie('array'), tie('object')),
      array: fc.array(tie('value'), {maxLength: 5}),
      object: fc.dictionary(fc.string(), tie('value'), {maxKeys: 5}),
    })).value
    fc.assert(
      fc.property(value, (v) => {
        assert.equal(pieces(v).join(''), JSON.stringify(v) ?? 'null')
      }),
      {numRuns: 2000},
    )
  })

  it('hands a report of 200,000 lines out in pieces, none of them much over 64 KiB', () => {
    const report = {
      added: {facts: 0},
      skipped: Array.from({length: 200_000}, (_, i) => ({line: i + 1, message: `01KFACT${i} is already stored`})),
    }
    const out = pieces(report)
    assert.equal(out.join(''), JSON.stringify(report))
    assert.ok(out.length > 100, `${out.length} pieces`)
    assert.ok(Math.max(...out.map((p) => p.length)) < 65 * 1024)
  })
})
