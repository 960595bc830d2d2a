import {Box} from 'ink'

import {inert} from '../../cli/inert-text.js'
import {wrapCells} from '../cells.js'
import {NOTICE_LINES} from '../layout.js'
import type {Screen} from '../state.js'
import {Line} from './line.js'

const HINTS: Record<Screen['name'], string> = {
  facts:
    '↑↓/jk move · Enter open · / search · n add · e edit · d delete · a agents · c checkpoints · q quit · PgUp/PgDn/Home/End',
  fact: '↑↓ scroll · e edit · d delete · Esc back · q back',
  edit: 'Enter save · #word tags it · Esc cancel · Ctrl-A/E start/end · Ctrl-U/K/W delete',
  'confirm-delete': 'y delete · n keep',
  'confirm-create': 'y create · n cancel',
  agents: '↑↓ move · Enter switch agent · Esc back',
  checkpoints: '↑↓ move · Enter open · Esc back',
  checkpoint: '↑↓ scroll · Esc back',
}

/** The lines a notice or an error takes under the body: wrapped to the width, at most {@link NOTICE_LINES}. */
export function noticeLines(message: string | undefined, width: number): string[] {
  if (message === undefined) return []
  const lines = wrapCells(inert(message), width)
  if (lines.length <= NOTICE_LINES) return lines
  return [...lines.slice(0, NOTICE_LINES - 1), `${lines[NOTICE_LINES - 1]!} ${lines[NOTICE_LINES]!}`]
}

export function StatusBar({
  screen,
  typing,
  notice,
  error,
  width,
}: {
  screen: Screen['name']
  typing: boolean
  /** The notice's lines, from {@link noticeLines}. */
  notice: string[]
  error: boolean
  width: number
}) {
  return (
    <Box flexDirection="column">
      {notice.map((text, i) => (
        <Line key={i} spans={[{text, color: error ? 'red' : 'green'}]} width={width} />
      ))}
      <Line
        spans={[{text: typing ? 'type to search · ↑↓ move · Enter/Esc stop typing' : HINTS[screen], dim: true}]}
        width={width}
      />
    </Box>
  )
}
