import {Box, Text} from 'ink'

import {inert} from '../../cli/inert-text.js'
import {relativeTime} from '../../cli/render-time.js'
import type {CheckpointSummary} from '../backend.js'
import {Line} from './line.js'
import {windowOf} from './window.js'

export function CheckpointList({
  checkpoints,
  selected,
  height,
  width,
  now,
}: {
  checkpoints: CheckpointSummary[]
  selected: number
  height: number
  width: number
  now: Date
}) {
  if (checkpoints.length === 0) return <Text color="yellow">No checkpoints saved for this agent.</Text>
  const {start, end} = windowOf(checkpoints.length, selected, height)
  const when = checkpoints.map((cp) => relativeTime(cp.created_at, now))
  const column = Math.max(...when.map((w) => w.length))
  return (
    <Box flexDirection="column">
      {checkpoints.slice(start, end).map((cp, i) => {
        const on = start + i === selected
        const color = on ? 'cyan' : undefined
        const label = `${inert(cp.label ?? '')}${cp.label ? '  ' : ''}`
        return (
          <Line
            key={cp.id}
            spans={[
              {
                text: `${on ? '▸' : ' '} ${when[start + i]!.padEnd(column)}  ${cp.id}  ${String(cp.message_count).padStart(4)} msgs  ${label}`,
                color,
              },
              {text: inert(cp.state_keys.join(', ')), color, dim: true},
            ]}
            width={width}
          />
        )
      })}
    </Box>
  )
}
