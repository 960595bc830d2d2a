import {Box, Text} from 'ink'

import {inert} from '../../cli/inert-text.js'
import {relativeTime} from '../../cli/render-time.js'
import type {History} from '../backend.js'
import {wrapCells, type Span} from '../cells.js'
import {Scrolled} from './scrolled.js'

type Version = History['versions'][number]

function statusLine(f: Version, now: Date): Span {
  if (f.status === 'deleted')
    return {text: `deleted ${relativeTime(f.deleted_at!, now)} (${f.deleted_at})`, color: 'red'}
  if (f.status === 'superseded')
    return {
      text: `replaced ${relativeTime(f.superseded_at!, now)} by ${inert(f.superseded_by ?? '')}`,
      color: 'magenta',
    }
  return {text: 'live', color: 'green'}
}

/** The fact's lines: its whole text wrapped to the width, then what is known of it, then its history, one line a version. */
function factLines(fact: Version, history: History, factId: string, now: Date, width: number): Span[][] {
  const tags = fact.tags.length > 0 ? fact.tags.map((t) => `#${inert(t)}`).join(' ') : '(no tags)'
  const thread = fact.thread === undefined ? '' : ` · thread ${inert(fact.thread)}`
  return [
    ...wrapCells(inert(fact.content), width).map((text) => [{text, bold: true}]),
    ...wrapCells(tags, width).map((text) => [{text, color: 'cyan'}]),
    [{text: `id ${fact.id} · agent ${inert(history.agent_id)}${thread}`, dim: true}],
    [{text: `saved ${relativeTime(fact.created_at, now)} (${fact.created_at})`}],
    [statusLine(fact, now)],
    [],
    [{text: `History · ${history.count} ${history.count === 1 ? 'version' : 'versions'}, oldest first`, bold: true}],
    ...history.versions.flatMap((f) => {
      const open = f.id === factId
      const s = statusLine(f, now)
      return [
        [{text: `${open ? '▸' : ' '} ${f.id}  ${relativeTime(f.created_at, now)}`, color: open ? 'cyan' : undefined}],
        [{text: `    ${inert(f.content)}`}],
        ...(f.reason === undefined ? [] : [[{text: `    reason: ${inert(f.reason)}`, dim: true}]]),
        [{...s, text: `    ${s.text}`}],
      ]
    }),
  ]
}

/** One fact in full, and below it every version in its history chain, oldest first. */
export function FactDetail({
  factId,
  history,
  now,
  height,
  width,
  scroll,
}: {
  factId: string
  history: History | undefined
  now: Date
  height: number
  width: number
  scroll: number
}) {
  const fact = history?.versions.find((f) => f.id === factId)
  if (!history || !fact) return <Text dimColor>Loading…</Text>
  return (
    <Box flexDirection="column">
      <Scrolled lines={factLines(fact, history, factId, now, width)} height={height} width={width} scroll={scroll} />
    </Box>
  )
}
