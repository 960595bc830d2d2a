/**
 * The browser's editor holds a fact's text and its tags in one line: a word `#office` is the
 * tag "office", as in most tools that take tags in text. Saving takes those words out of the
 * text; editing puts the fact's tags back in as `#tag` words, so deleting one removes the tag.
 * A `#` inside a word ("C#", "issue#4") is text.
 */
const TAG_WORD = /(?<=^|\s)#([^\s#]+)(?=\s|$)/gu

export function splitDraft(draft: string): {content: string; tags: string[]} {
  const tags = [...draft.matchAll(TAG_WORD)].map((m) => m[1]!)
  const content = draft.replaceAll(TAG_WORD, '').replaceAll(/\s+/g, ' ').trim()
  return {content, tags: [...new Set(tags)]}
}

export function joinDraft(content: string, tags: readonly string[]): string {
  return [content, ...tags.map((tag) => `#${tag}`)].join(' ')
}
