import assert from 'node:assert/strict'

import {datesInQuery} from '../../src/search/query-dates.js'
import {ENGLISH_STOPWORDS} from '../../src/search/stopwords.js'
import {analyze, tokenize} from '../../src/search/tokenize.js'

describe('tokenize and analyze', () => {
  it('lower-cases, folds accents and splits on punctuation, hyphens and spaces', () => {
    assert.deepEqual(tokenize('Café-Crème, SELF-care! 2023-05-08'), [
      'cafe',
      'creme',
      'self',
      'care',
      '2023',
      '05',
      '08',
    ])
  })

  it('keeps marks that belong to letters in other scripts', () => {
    assert.deepEqual(tokenize('हिंदी Zoë'), ['हिंदी', 'zoe'])
  })

  it("drops possessive 's, with straight or curly apostrophes", () => {
    assert.deepEqual(tokenize("Caroline's and Melanie’s"), ['caroline', 'and', 'melanie'])
  })

  it('splits other contractions into pieces the stopword list holds', () => {
    assert.deepEqual(tokenize("I'm we've"), ['i', 'm', 'we', 've'])
    assert.deepEqual(analyze("don't I'm we've"), [])
  })

  it('drops negative contractions whole, so "won" and "Don" stay searchable', () => {
    assert.deepEqual(tokenize("don't won't can't Didn’t"), [])
    assert.deepEqual(tokenize("I don't know what Don won; it isn't late"), [
      'i',
      'know',
      'what',
      'don',
      'won',
      'it',
      'late',
    ])
    assert.deepEqual(analyze('Gina won first place; Don won too'), ['gina', 'won', 'first', 'place', 'don', 'won'])
  })

  it('meets irregular verbs and plurals with their base form', () => {
    assert.deepEqual(analyze('bought buy buys'), ['bui', 'bui', 'bui'])
    assert.deepEqual(analyze('went go'), ['go', 'go'])
    assert.equal(analyze('taught')[0], analyze('teaching')[0])
    assert.equal(analyze('children')[0], analyze('child')[0])
    // Forms that are as often another word are left alone.
    assert.deepEqual(analyze('saw rose'), ['saw', 'rose'])
  })

  it('stems with Porter, so inflections meet', () => {
    assert.deepEqual(analyze('researching researched research'), ['research', 'research', 'research'])
    assert.deepEqual(analyze('agencies agency'), analyze('agency agencies'))
    assert.equal(analyze('turtles')[0], analyze('turtle')[0])
  })

  it('removes stopwords but keeps numbers and "may" (a month)', () => {
    assert.deepEqual(analyze('What did she do in May of 2023?'), ['mai', '2023'])
    assert.ok(ENGLISH_STOPWORDS.has('the') && ENGLISH_STOPWORDS.has('would'))
  })

  it('handles empty, emoji-only and odd Unicode input', () => {
    assert.deepEqual(analyze(''), [])
    assert.deepEqual(analyze('🙂🎉'), [])
    assert.deepEqual(analyze('\uD800 lone surrogate'), ['lone', 'surrog'])
  })
})

describe('datesInQuery', () => {
  const iso = (q: string) =>
    datesInQuery(q).map((s) => [
      new Date(s.start).toISOString().slice(0, 10),
      new Date(s.end).toISOString().slice(0, 10),
    ])

  it('reads days and months that carry a year', () => {
    assert.deepEqual(iso('What did Maria do on 1 February, 2023?'), [['2023-02-01', '2023-02-02']])
    assert.deepEqual(iso('what happened in December 2023'), [['2023-12-01', '2024-01-01']])
  })

  it('ignores relative dates and dates without a year', () => {
    assert.deepEqual(iso('what did we do last year'), [])
    assert.deepEqual(iso('camping in June'), [])
    assert.deepEqual(iso('it cost 2023 dollars'), [])
  })
})
