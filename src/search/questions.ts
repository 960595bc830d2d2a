/**
 * Whether a fact ends by asking something ("Love the necklace, any special meaning to it?").
 * In a conversation saved turn by turn, such a fact hands over to the next one, which answers
 * it, usually without repeating its words.
 */
export function endsWithQuestion(text: string): boolean {
  // The full-width question mark is how Chinese and Japanese end a question.
  return /[?？]\s*$/u.test(text)
}

/** A leading speaker label, as `mem import` writes a transcript's turns ("Caroline: ..."). */
const SPEAKER = /^[^:\n]{1,40}:\s/u

/**
 * The question a fact ends with: the text after its last full stop, exclamation mark or line
 * break (ASCII or full-width), without a leading speaker label; undefined if it does not end
 * with a question. "I bought a coffee maker three weeks ago. Any cleaning tips?" ends by asking
 * for cleaning tips, not about the coffee maker's date, so only a search for what the question
 * asks about should hand its score on to the reply.
 */
export function closingQuestion(text: string): string | undefined {
  if (!endsWithQuestion(text)) return undefined
  const turn = text.replace(SPEAKER, '')
  // Full stops and exclamation marks of Chinese and Japanese too (。！).
  return turn.slice(turn.search(/[.!。！\n][^.!。！\n]*$/u) + 1)
}
