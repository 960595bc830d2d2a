import assert from 'node:assert/strict'

import {inert, inertBlock, inertStrings} from '../../src/cli/inert-text.js'

describe('inert text for a terminal', () => {
  it('shows every C0 control as its picture, DEL as ␡ and C1 as \\u escapes', () => {
    assert.equal(inert('a\u001B]0;t\u0007b'), 'a␛]0;t␇b')
    assert.equal(inert('\u0000\u0009\u000A\u000D\u001F\u007F'), '␀␉␊␍␟␡')
    assert.equal(inert('x\u009B2J\u0080\u009F'), 'x\\u009b2J\\u0080\\u009f')
    for (let code = 0; code < 0xa0; code++) {
      const out = inert(String.fromCharCode(code))
      // eslint-disable-next-line no-control-regex -- checking that none is left
      assert.ok(!/[\u0000-\u001F\u007F-\u009F]/.test(out), `U+${code.toString(16)} is shown as ${JSON.stringify(out)}`)
    }
  })

  it('shows the bidirectional embeddings, overrides and isolates as \\u escapes', () => {
    assert.equal(inert('id \u202Eabc\u202C'), 'id \\u202eabc\\u202c')
    for (const code of [0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069]) {
      const char = String.fromCharCode(code)
      assert.equal(inert(char), `\\u${code.toString(16)}`)
      assert.equal(inertBlock(`a\n${char}`), `a\n\\u${code.toString(16)}`)
    }
  })

  it('leaves printable text of any script alone, with the marks right-to-left writing uses', () => {
    for (const text of [
      'plain',
      'été 日本 עברית',
      '😀 ␛ literal',
      '\u00A0nbsp',
      'שלום\u200F 3',
      'a\u200Eb\u061C',
      '👨\u200D👩',
    ]) {
      assert.equal(inert(text), text)
    }
  })

  it('keeps the line breaks and tabs of a block, and nothing else', () => {
    assert.equal(inertBlock('one\ttwo\nthree\r\u001B[2J'), 'one\ttwo\nthree␍␛[2J')
  })

  it('copies a payload with every string, keys included, made inert', () => {
    const payload = {
      n: 1,
      ok: true,
      none: null,
      facts: [{content: '\u001B[31mred', tags: ['a']}],
      state: {'k\u001B': ['\u009B']},
    }
    assert.deepEqual(inertStrings(payload), {
      n: 1,
      ok: true,
      none: null,
      facts: [{content: '␛[31mred', tags: ['a']}],
      state: {'k␛': ['\\u009b']},
    })
    assert.equal(payload.facts[0]!.content, '\u001B[31mred', 'the payload itself is unchanged')
  })
})
