import assert from 'node:assert/strict'

import {describeJsonError} from '../../src/store/json-position.js'

/** What a data file's parse error says, from the text and the message V8 gives for it. */
function described(text: string): string {
  try {
    JSON.parse(text)
  } catch (error) {
    return describeJsonError(text, (error as Error).message)
  }
  throw new Error('the text parsed')
}

describe('a JSON syntax error names its line and column, never the text', () => {
  it('a trailing comma before ] or }, which V8 reports without a position', () => {
    assert.equal(
      described('{\n  "records": [\n    {"id": 1},\n  ]\n}\n'),
      'it is not valid JSON at line 4, column 3 (a comma before a closing bracket)',
    )
    assert.equal(
      described('{"a": 1,\n}'),
      'it is not valid JSON at line 2, column 1 (a comma before a closing bracket)',
    )
  })

  it('a text that stops short', () => {
    assert.equal(described('{\n  "a": [1, 2'), 'it is not valid JSON: it ends too early (line 2, column 13)')
  })

  it('a misspelt word, a raw newline in a string, bytes after the end', () => {
    assert.equal(described('{"a": tru}'), 'it is not valid JSON at line 1, column 7')
    assert.equal(described('{"a": "x\ny"}'), 'it is not valid JSON at line 1, column 9')
    assert.equal(described('{"a": 1}\nsecret'), 'it is not valid JSON at line 2, column 1')
  })

  it('never quotes what the file holds', () => {
    assert.doesNotMatch(described('{"secret": [1,]}'), /secret/)
  })
})
