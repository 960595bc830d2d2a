import {Box} from 'ink'

import {inert} from '../../cli/inert-text.js'
import {wrapCells, type Span} from '../cells.js'
import {Line} from './line.js'

/** A question: its title, what it is about (cut to the rows there are), and the keys that answer it. */
function Question({
  title,
  about,
  keys,
  width,
  height,
}: {
  title: string
  about: Span[]
  keys: string
  width: number
  height: number
}) {
  const answer = wrapCells(keys, width)
  const room = Math.max(0, height - 1 - answer.length)
  const lines = about.flatMap((span) => wrapCells(span.text, width).map((text) => ({...span, text})))
  return (
    <Box flexDirection="column">
      <Line spans={[{text: title, bold: true, color: 'red'}]} width={width} />
      {lines.slice(0, room).map((span, i) => (
        <Line key={i} spans={[span]} width={width} />
      ))}
      {answer.map((text, i) => (
        <Line key={`keys-${i}`} spans={[{text, dim: true}]} width={width} />
      ))}
    </Box>
  )
}

export function ConfirmDelete({
  content,
  busy,
  width,
  height,
}: {
  content: string | undefined
  busy: boolean
  width: number
  height: number
}) {
  return (
    <Question
      title="Delete this fact?"
      about={[{text: inert(content ?? '')}]}
      keys={busy ? 'Deleting…' : 'It stays in history and leaves search. y deletes · n or Esc keeps it'}
      width={width}
      height={height}
    />
  )
}

/** Asked before the first fact of an agent that has stored nothing: its name may be a typo. */
export function ConfirmCreate({agent, width, height}: {agent: string; width: number; height: number}) {
  return (
    <Question
      title={`Create agent ${inert(agent)}?`}
      about={[{text: `No agent ${inert(agent)} has stored anything yet. Its first fact creates it.`}]}
      keys="y creates it and opens the editor (nothing is stored until you save) · n or Esc cancels"
      width={width}
      height={height}
    />
  )
}
