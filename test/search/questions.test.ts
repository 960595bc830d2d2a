import assert from 'node:assert/strict'

import {questionShare} from '../../src/search/questions.js'

describe('questionShare', () => {
  it('is 1 for a question, 0 for a statement', () => {
    assert.equal(questionShare('What motivated you to pursue counseling?'), 1)
    assert.equal(questionShare('My own journey made a huge difference.'), 0)
    assert.equal(questionShare('No punctuation at all'), 0)
    assert.equal(questionShare(''), 0)
  })

  it('is the share of terms in sentences that ask', () => {
    // "nice hear" states, "love necklace special meaning" asks.
    assert.equal(questionShare('Nice to hear from you! Love the necklace, any special meaning to it?'), 4 / 6)
    // Five terms tell (matt patterson talent song amaz), two ask (anyth new).
    assert.equal(questionShare('It was Matt Patterson, he is so talented! His songs were amazing. Anything new?'), 2 / 7)
  })

  it('does not split sentences inside numbers and versions', () => {
    assert.equal(questionShare('Is v1.2 out yet?'), 1)
    assert.equal(questionShare('Pi is 3.14, right?'), 1)
  })
})
