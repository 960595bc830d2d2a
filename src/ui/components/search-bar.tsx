import {inert} from '../../cli/inert-text.js'
import type {Line as TypedLine} from '../line-edit.js'
import {Line} from './line.js'
import {cursorRows} from './typed-line.js'

const PROMPT = {text: '/ ', bold: true} as const

export function SearchBar({query, typing, width}: {query: TypedLine; typing: boolean; width: number}) {
  if (!typing && query.text === '')
    return <Line spans={[{text: 'Newest first · press / to search', dim: true}]} width={width} />
  if (!typing) {
    const hint = {text: '  (ranked by relevance · Esc clears)', dim: true}
    return <Line spans={[PROMPT, {text: inert(query.text)}, hint]} width={width} />
  }
  // A query wider than the screen shows the stretch the cursor is in.
  const {rows, at} = cursorRows(query, width - PROMPT.text.length)
  return <Line spans={[{...PROMPT, color: 'cyan'}, ...rows[at]!]} width={width} />
}
