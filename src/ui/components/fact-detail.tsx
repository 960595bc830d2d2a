import {Box, Text} from 'ink'

import {inert} from '../../cli/inert-text.js'
import {relativeTime} from '../../cli/render-time.js'
import type {History} from '../backend.js'

type Version = History['versions'][number]

function statusLine(f: Version, now: Date): {text: string; color: string} {
  if (f.status === 'deleted')
    return {text: `deleted ${relativeTime(f.deleted_at!, now)} (${f.deleted_at})`, color: 'red'}
  if (f.status === 'superseded')
    return {
      text: `replaced ${relativeTime(f.superseded_at!, now)} by ${inert(f.superseded_by ?? '')}`,
      color: 'magenta',
    }
  return {text: 'live', color: 'green'}
}

/** One fact in full, and below it every version in its history chain, oldest first. */
export function FactDetail({
  factId,
  history,
  now,
  height,
  scroll,
}: {
  factId: string
  history: History | undefined
  now: Date
  height: number
  scroll: number
}) {
  const fact = history?.versions.find((f) => f.id === factId)
  if (!history || !fact) return <Text dimColor>Loading…</Text>
  const status = statusLine(fact, now)
  const rows = [
    <Text key="content" bold>
      {inert(fact.content)}
    </Text>,
    <Text key="tags" color="cyan">
      {fact.tags.length > 0 ? fact.tags.map((t) => `#${inert(t)}`).join(' ') : '(no tags)'}
    </Text>,
    <Text
      key="id"
      dimColor
    >{`id ${fact.id} · agent ${inert(history.agent_id)}${fact.thread === undefined ? '' : ` · thread ${inert(fact.thread)}`}`}</Text>,
    <Text key="saved">{`saved ${relativeTime(fact.created_at, now)} (${fact.created_at})`}</Text>,
    <Text key="status" color={status.color}>
      {status.text}
    </Text>,
    <Text key="gap"> </Text>,
    <Text
      key="head"
      bold
    >{`History · ${history.count} ${history.count === 1 ? 'version' : 'versions'}, oldest first`}</Text>,
    ...history.versions.flatMap((f) => {
      const s = statusLine(f, now)
      return [
        <Text
          key={`${f.id}-a`}
          color={f.id === factId ? 'cyan' : undefined}
        >{`${f.id === factId ? '▸' : ' '} ${f.id}  ${relativeTime(f.created_at, now)}`}</Text>,
        <Text key={`${f.id}-b`} wrap="truncate-end">{`    ${inert(f.content)}`}</Text>,
        ...(f.reason === undefined ? [] : [<Text key={`${f.id}-r`} dimColor>{`    reason: ${inert(f.reason)}`}</Text>]),
        <Text key={`${f.id}-c`} color={s.color}>{`    ${s.text}`}</Text>,
      ]
    }),
  ]
  const top = Math.min(scroll, Math.max(0, rows.length - height))
  return <Box flexDirection="column">{rows.slice(top, top + height)}</Box>
}
