import {Box, Text} from 'ink'

import {inert} from '../../cli/inert-text.js'
import {relativeTime} from '../../cli/render-time.js'
import type {AgentSummary} from '../backend.js'
import {cellWidth, padCells} from '../cells.js'
import {Line} from './line.js'
import {windowOf} from './window.js'

export function AgentList({
  agents,
  selected,
  current,
  height,
  width,
  now,
}: {
  agents: AgentSummary[]
  selected: number
  current: string
  height: number
  width: number
  now: Date
}) {
  if (agents.length === 0) return <Text color="yellow">No agents have stored anything yet.</Text>
  const {start, end} = windowOf(agents.length, selected, height)
  const names = agents.map((a) => inert(a.agent_id))
  const column = Math.min(Math.max(...names.map(cellWidth)), Math.max(8, Math.floor(width / 3)))
  return (
    <Box flexDirection="column">
      {agents.slice(start, end).map((a, i) => {
        const on = start + i === selected
        const counts = `  ${String(a.facts).padStart(5)} ${a.facts === 1 ? 'fact ' : 'facts'}  ${String(a.checkpoints).padStart(4)} ${a.checkpoints === 1 ? 'checkpoint ' : 'checkpoints'}  ${a.last_activity ? relativeTime(a.last_activity, now) : 'never'}`
        return (
          <Line
            key={a.agent_id}
            spans={[
              {
                text: `${on ? '▸' : ' '} ${padCells(names[start + i]!, column)}${counts}`,
                color: on ? 'cyan' : undefined,
                bold: a.agent_id === current,
              },
            ]}
            width={width}
          />
        )
      })}
    </Box>
  )
}
