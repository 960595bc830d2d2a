import {inert} from '../../cli/inert-text.js'
import {cellWidth, type Span} from '../cells.js'
import type {Line} from '../line-edit.js'

const graphemes = new Intl.Segmenter(undefined, {granularity: 'grapheme'})

/**
 * A line being typed broken into rows of `width` cells (between any two characters, as a
 * terminal wraps), with the character under the cursor, or a blank cell after the last,
 * drawn inverse. `at` is the row the cursor is on, so a long draft can show the rows around it.
 */
export function cursorRows(line: Line, width: number): {rows: Span[][]; at: number} {
  const room = Math.max(1, width)
  const rows: Span[][] = [[]]
  let cells = 0
  let at = 0
  const put = (text: string, under: boolean): void => {
    const w = cellWidth(text)
    if (cells > 0 && cells + w > room) {
      rows.push([])
      cells = 0
    }
    const row = rows.at(-1)!
    const last = row.at(-1)
    if (last && !under && !last.inverse) last.text += text
    else row.push(under ? {text, inverse: true} : {text})
    cells += w
    if (under) at = rows.length - 1
  }
  for (const {segment, index} of graphemes.segment(line.text)) put(inert(segment), index === line.cursor)
  if (line.cursor >= line.text.length) put(' ', true)
  return {rows, at}
}
