import assert from 'node:assert/strict'

import {endsWithQuestion} from '../../src/search/questions.js'

describe('endsWithQuestion', () => {
  it('is true for a fact whose last sentence asks', () => {
    assert.equal(endsWithQuestion('What motivated you to pursue counseling?'), true)
    assert.equal(endsWithQuestion('Nice to hear from you! Love the necklace, any special meaning to it?  '), true)
  })

  it('is false for statements, and for facts that ask first and then tell', () => {
    assert.equal(endsWithQuestion('My own journey made a huge difference.'), false)
    assert.equal(endsWithQuestion('What concert was it? Matt Patterson, I think.'), false)
    assert.equal(endsWithQuestion('No punctuation at all'), false)
    assert.equal(endsWithQuestion(''), false)
  })
})
