import {analyze} from './tokenize.js'

/** A sentence and the punctuation that ends it (followed by a space, so "v1.2" is one word), or the rest of the text. */
const SENTENCE = /.+?(?:[.!?…]+(?=\s|$)|$)/gsu

/**
 * How much of a fact asks rather than tells: the share of its terms that stand in sentences
 * ending with a question mark, 0 to 1. "What motivated you to pursue counseling?" is 1, a
 * plain statement 0, "It was Matt Patterson! What's up with you?" in between.
 */
export function questionShare(text: string): number {
  let asked = 0
  let all = 0
  for (const sentence of text.match(SENTENCE) ?? []) {
    const n = analyze(sentence).length
    all += n
    if (/\?/u.test(sentence)) asked += n
  }
  return all === 0 ? 0 : asked / all
}
