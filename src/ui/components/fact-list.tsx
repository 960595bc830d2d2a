import {Box, Text} from 'ink'

import {inert} from '../../cli/inert-text.js'
import {highlight} from '../../cli/render-highlight.js'
import {relativeTime} from '../../cli/render-time.js'
import type {FactRow} from '../backend.js'
import {wrapCells, type Span} from '../cells.js'
import {counted} from '../titles.js'
import {Line} from './line.js'
import {windowOf} from './window.js'

export interface FactListProps {
  /** The loaded rows of the list, the first being row `offset` of `count`. */
  facts: FactRow[]
  offset: number
  count: number
  selected: number
  query: string
  height: number
  width: number
  now: Date
  /** False until the first results arrive, so an empty store and a slow read look different. */
  loaded: boolean
  /** The search stopped at its limit: more facts may match than it shows. */
  capped: boolean
  /** The agent named on the command line stores nothing: the hint naming the agents there are. */
  unknown: {agent: string; hint: string} | undefined
}

function Message({lines, width}: {lines: {text: string; color?: string; dim?: boolean}[]; width: number}) {
  return (
    <Box flexDirection="column">
      {lines.flatMap((line, i) =>
        wrapCells(line.text, width).map((text, j) => (
          <Line key={`${i}-${j}`} spans={[{text, color: line.color, dim: line.dim}]} width={width} />
        )),
      )}
    </Box>
  )
}

function empty({query, unknown, width}: FactListProps) {
  if (query.trim() !== '')
    return <Message lines={[{text: `No facts found for "${inert(query)}".`, color: 'yellow'}]} width={width} />
  if (unknown)
    return (
      <Message
        lines={[
          {text: inert(unknown.hint), color: 'yellow'},
          {
            text: `Press a to switch to another agent, or n to create agent ${inert(unknown.agent)} with a first fact.`,
            dim: true,
          },
        ]}
        width={width}
      />
    )
  return <Message lines={[{text: 'No facts yet. Press n to add one.', color: 'yellow'}]} width={width} />
}

function contentSpans(fact: FactRow, query: string, current: boolean): Span[] {
  const text: Span[] =
    fact.by_meaning === true
      ? [{text: `≈ ${inert(fact.content)}`, color: 'blue'}]
      : fact.context_for === undefined
        ? highlight(inert(fact.content), query).map((s) =>
            s.match ? {text: s.text, bold: true, color: 'yellow'} : {text: s.text},
          )
        : [{text: `↳ ${inert(fact.content)}`, color: 'magenta', dim: true}]
  const tags: Span[] =
    fact.tags.length > 0 ? [{text: ` ${fact.tags.map((t) => `#${inert(t)}`).join(' ')}`, color: 'cyan'}] : []
  return [...text, ...tags].map((s) => (current ? {...s, inverse: true} : s))
}

export function FactList(props: FactListProps) {
  const {facts, offset, count, selected, query, height, width, now, loaded, capped} = props
  if (!loaded) return <Text dimColor>Loading…</Text>
  if (count === 0) return empty(props)
  const footer = count > height || capped
  const {start, end} = windowOf(count, selected, footer ? height - 1 : height)
  const rows = Array.from({length: end - start}, (_, i) => ({index: start + i, fact: facts[start + i - offset]}))
  const when = rows.map(({fact}) => (fact ? relativeTime(fact.created_at, now) : ''))
  const column = Math.max(...when.map((w) => w.length))
  return (
    <Box flexDirection="column">
      {rows.map(({index, fact}, i) => {
        const current = index === selected
        const marker: Span = {text: current ? '▸ ' : '  ', color: current ? 'cyan' : undefined, bold: current}
        // A row not loaded yet (a jump far down the list) shows as a gap until its page arrives.
        if (!fact) return <Line key={`row-${index}`} spans={[marker, {text: '…', dim: true}]} width={width} />
        const spans = [
          marker,
          {text: when[i]!.padEnd(column), color: 'green'},
          {text: ' '},
          ...contentSpans(fact, query, current),
        ]
        return <Line key={fact.id} spans={spans} width={width} />
      })}
      {footer ? (
        <Line
          spans={[
            {
              text: `  ${counted(selected + 1)} of ${counted(count)}${capped ? ` · search shows the ${counted(count)} best; add words to narrow it` : ''}`,
              dim: true,
            },
          ]}
          width={width}
        />
      ) : null}
    </Box>
  )
}
