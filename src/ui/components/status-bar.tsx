import {Box, Text} from 'ink'

import {inert} from '../../cli/inert-text.js'
import type {Screen} from '../state.js'

const HINTS: Record<Screen['name'], string> = {
  facts: '↑↓/jk move · Enter open · / search · n add · e edit · d delete · a agents · c checkpoints · q quit',
  fact: '↑↓ scroll · e edit · d delete · Esc back · q back',
  edit: 'Enter save · #word tags it · Esc cancel',
  'confirm-delete': 'y delete · n keep',
  agents: '↑↓ move · Enter switch agent · Esc back',
  checkpoints: '↑↓ move · Enter open · Esc back',
  checkpoint: '↑↓ scroll · Esc back',
}

export function StatusBar({
  screen,
  typing,
  notice,
  error,
}: {
  screen: Screen['name']
  typing: boolean
  notice: string | undefined
  error: string | undefined
}) {
  return (
    <Box flexDirection="column">
      {error ? <Text color="red">{inert(error)}</Text> : notice ? <Text color="green">{inert(notice)}</Text> : null}
      <Text dimColor wrap="truncate-end">
        {typing ? 'type to search · ↑↓ move · Enter/Esc stop typing' : HINTS[screen]}
      </Text>
    </Box>
  )
}
