/**
 * Whether a fact ends by asking something ("Love the necklace, any special meaning to it?").
 * In a conversation saved turn by turn, such a fact hands over to the next one, which answers
 * it, usually without repeating its words.
 */
export function endsWithQuestion(text: string): boolean {
  return /\?\s*$/u.test(text)
}
