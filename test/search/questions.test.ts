import assert from 'node:assert/strict'

import {closingQuestion, endsWithQuestion} from '../../src/search/questions.js'

describe('endsWithQuestion', () => {
  it('is true for a fact whose last sentence asks', () => {
    assert.equal(endsWithQuestion('What motivated you to pursue counseling?'), true)
    assert.equal(endsWithQuestion('Nice to hear from you! Love the necklace, any special meaning to it?  '), true)
  })

  it('is true for a Chinese or Japanese question, which ends with a full-width question mark', () => {
    assert.equal(endsWithQuestion('你周末去哪儿了？'), true)
    assert.equal(endsWithQuestion('東京のオフィスは何階ですか？'), true)
    assert.equal(endsWithQuestion('我去了上海。'), false)
  })

  it('is false for statements, and for facts that ask first and then tell', () => {
    assert.equal(endsWithQuestion('My own journey made a huge difference.'), false)
    assert.equal(endsWithQuestion('What concert was it? Matt Patterson, I think.'), false)
    assert.equal(endsWithQuestion('No punctuation at all'), false)
    assert.equal(endsWithQuestion(''), false)
  })
})

describe('closingQuestion', () => {
  it('is the question a fact ends with: after its last full stop, exclamation mark or line break', () => {
    assert.equal(closingQuestion('I bought a coffee maker three weeks ago. Any cleaning tips?'), ' Any cleaning tips?')
    assert.equal(
      closingQuestion('Nice to hear from you! Love the necklace, any special meaning to it?'),
      ' Love the necklace, any special meaning to it?',
    )
    assert.equal(closingQuestion('Here is my list\nCan you sort it? By date?'), 'Can you sort it? By date?')
  })

  it('starts after a Chinese or Japanese full stop or exclamation mark', () => {
    assert.equal(closingQuestion('我买了一台咖啡机。怎么清洗？'), '怎么清洗？')
    assert.equal(closingQuestion('ランチ美味しかった！次はどこに行く？'), '次はどこに行く？')
  })

  it('leaves out the speaker label mem import writes before a turn', () => {
    assert.equal(
      closingQuestion('Caroline: Love the necklace, any special meaning to it?'),
      'Love the necklace, any special meaning to it?',
    )
  })

  it('is undefined for a fact that does not end with a question', () => {
    assert.equal(closingQuestion('What concert was it? Matt Patterson, I think.'), undefined)
    assert.equal(closingQuestion(''), undefined)
  })
})
