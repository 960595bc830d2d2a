import {Box, Text} from 'ink'

import {inert} from '../../cli/inert-text.js'
import {relativeTime} from '../../cli/render-time.js'
import type {CheckpointSummary} from '../backend.js'
import {windowOf} from './window.js'

export function CheckpointList({
  checkpoints,
  selected,
  height,
  now,
}: {
  checkpoints: CheckpointSummary[]
  selected: number
  height: number
  now: Date
}) {
  if (checkpoints.length === 0) return <Text color="yellow">No checkpoints saved for this agent.</Text>
  const {start, end} = windowOf(checkpoints.length, selected, height)
  const when = checkpoints.map((cp) => relativeTime(cp.created_at, now))
  const width = Math.max(...when.map((w) => w.length))
  return (
    <Box flexDirection="column">
      {checkpoints.slice(start, end).map((cp, i) => {
        const on = start + i === selected
        return (
          <Text key={cp.id} color={on ? 'cyan' : undefined} wrap="truncate-end">
            {`${on ? '▸' : ' '} ${when[start + i]!.padEnd(width)}  ${cp.id}  ${String(cp.message_count).padStart(4)} msgs  ${inert(cp.label ?? '')}${cp.label ? '  ' : ''}`}
            <Text dimColor>{inert(cp.state_keys.join(', '))}</Text>
          </Text>
        )
      })}
    </Box>
  )
}
