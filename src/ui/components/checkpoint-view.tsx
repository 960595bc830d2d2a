import {Box, Text} from 'ink'

import {inert, inertStrings} from '../../cli/inert-text.js'
import {relativeTime} from '../../cli/render-time.js'
import {messagesHeading} from '../../ops/resume.js'
import type {CheckpointDetail} from '../backend.js'
import {Line} from './line.js'
import {Scrolled} from './scrolled.js'

/** A checkpoint with its state pretty-printed, scrolled to `scroll`. */
export function CheckpointView({
  checkpoint,
  height,
  width,
  scroll,
  now,
}: {
  checkpoint: CheckpointDetail | undefined
  height: number
  width: number
  scroll: number
  now: Date
}) {
  if (!checkpoint) return <Text dimColor>Loading…</Text>
  if (!checkpoint.found) return <Text color="yellow">This checkpoint is gone.</Text>
  const head = [
    `Checkpoint ${checkpoint.id}${checkpoint.label ? ` · ${inert(checkpoint.label)}` : ''}`,
    `saved ${relativeTime(checkpoint.created_at, now)} (${checkpoint.created_at}) · ${checkpoint.message_count ?? 0} ${checkpoint.message_count === 1 ? 'message' : 'messages'}`,
  ]
  // As `mem resume` shows it: every string inert first (JSON itself would escape C0, not DEL or C1).
  const state = JSON.stringify(inertStrings(checkpoint.state ?? {}), null, 2).split('\n')
  const messages = checkpoint.messages ?? []
  if (messages.length > 0)
    state.push(
      '',
      messagesHeading(messages.length, checkpoint.message_count ?? messages.length),
      ...messages.map((m) => JSON.stringify(inertStrings(m))),
    )
  return (
    <Box flexDirection="column">
      <Line spans={[{text: head[0]!, bold: true}]} width={width} />
      <Line spans={[{text: head[1]!, dim: true}]} width={width} />
      <Scrolled
        lines={state.map((text) => [{text}])}
        height={Math.max(1, height - head.length)}
        width={width}
        scroll={scroll}
      />
    </Box>
  )
}
