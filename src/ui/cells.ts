import stringWidth from 'string-width'

/**
 * Text measured as a terminal lays it out, in cells: a wide CJK character or an emoji takes
 * two, a combining mark none. The browser fits every line it draws to the terminal's width by
 * these measures (string-width, the same ink lays text out by), so a long fact is cut, never
 * wrapped into the rows below it. Text passed here is already inert (src/cli/inert-text.ts).
 */

const graphemes = new Intl.Segmenter(undefined, {granularity: 'grapheme'})

export const ELLIPSIS = '…'

export function cellWidth(text: string): number {
  return stringWidth(text)
}

/** A run of text drawn in one style. */
export interface Span {
  text: string
  color?: string
  bold?: boolean
  dim?: boolean
  inverse?: boolean
}

/** The longest start of `text` that takes at most `width` cells, cut between characters a reader sees as one. */
function head(text: string, width: number): {text: string; cells: number} {
  let cells = 0
  let end = 0
  for (const {segment, index} of graphemes.segment(text)) {
    const w = stringWidth(segment)
    if (cells + w > width) break
    cells += w
    end = index + segment.length
  }
  return {text: text.slice(0, end), cells}
}

/**
 * The spans cut to `width` cells, ending in an ellipsis when anything was cut; the ellipsis
 * takes the style of the span it ends.
 */
export function fitSpans(spans: readonly Span[], width: number): Span[] {
  const total = spans.reduce((sum, s) => sum + stringWidth(s.text), 0)
  if (total <= width) return [...spans]
  const room = Math.max(0, width - 1)
  const out: Span[] = []
  let used = 0
  for (const span of spans) {
    const cut = head(span.text, room - used)
    used += cut.cells
    if (cut.text.length < span.text.length) {
      if (width >= 1) out.push({...span, text: cut.text + ELLIPSIS})
      break
    }
    out.push(span)
  }
  return out.filter((s) => s.text !== '')
}

/** One string cut to `width` cells with an ellipsis. */
export function fit(text: string, width: number): string {
  return fitSpans([{text}], width)
    .map((s) => s.text)
    .join('')
}

/** `text` padded with spaces to `width` cells (or cut to it). */
export function padCells(text: string, width: number): string {
  const fitted = fit(text, width)
  return fitted + ' '.repeat(Math.max(0, width - stringWidth(fitted)))
}

/**
 * `text` broken into lines of at most `width` cells: between words where it can, inside a word
 * longer than a line where it must. Line breaks in the text are kept (inert text has none).
 */
export function wrapCells(text: string, width: number): string[] {
  const room = Math.max(1, width)
  return text.split('\n').flatMap((paragraph) => wrapParagraph(paragraph, room))
}

function wrapParagraph(paragraph: string, width: number): string[] {
  const lines: string[] = []
  let line = ''
  let cells = 0
  for (const word of paragraph.split(/(?<= )/)) {
    const w = stringWidth(word)
    if (cells + stringWidth(word.trimEnd()) <= width) {
      line += word
      cells += w
      continue
    }
    if (line !== '') lines.push(line.trimEnd())
    line = ''
    cells = 0
    let rest = word
    while (stringWidth(rest.trimEnd()) > width) {
      const cut = head(rest, width)
      // A character wider than the whole line still goes on one of its own.
      const taken = cut.text === '' ? [...graphemes.segment(rest)][0]!.segment : cut.text
      lines.push(taken)
      rest = rest.slice(taken.length)
    }
    line = rest
    cells = stringWidth(rest)
  }
  lines.push(line.trimEnd())
  return lines
}
