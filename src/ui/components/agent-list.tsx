import {Box, Text} from 'ink'

import {inert} from '../../cli/inert-text.js'
import {relativeTime} from '../../cli/render-time.js'
import type {AgentSummary} from '../backend.js'
import {windowOf} from './window.js'

export function AgentList({
  agents,
  selected,
  current,
  height,
  now,
}: {
  agents: AgentSummary[]
  selected: number
  current: string
  height: number
  now: Date
}) {
  if (agents.length === 0) return <Text color="yellow">No agents have stored anything yet.</Text>
  const {start, end} = windowOf(agents.length, selected, height)
  const names = agents.map((a) => inert(a.agent_id))
  const width = Math.max(...names.map((n) => n.length))
  return (
    <Box flexDirection="column">
      {agents.slice(start, end).map((a, i) => {
        const on = start + i === selected
        return (
          <Text key={a.agent_id} color={on ? 'cyan' : undefined} bold={a.agent_id === current}>
            {`${on ? '▸' : ' '} ${names[start + i]!.padEnd(width)}  ${String(a.facts).padStart(5)} ${a.facts === 1 ? 'fact ' : 'facts'}  ${String(a.checkpoints).padStart(4)} ${a.checkpoints === 1 ? 'checkpoint ' : 'checkpoints'}  ${a.last_activity ? relativeTime(a.last_activity, now) : 'never'}`}
          </Text>
        )
      })}
    </Box>
  )
}
