import {Box, Text} from 'ink'

import {inert} from '../../cli/inert-text.js'

export function ConfirmDelete({content, busy}: {content: string | undefined; busy: boolean}) {
  return (
    <Box flexDirection="column">
      <Text bold color="red">
        Delete this fact?
      </Text>
      <Text>{inert(content ?? '')}</Text>
      <Text dimColor>
        {busy ? 'Deleting…' : 'It stays in history and leaves search. y deletes · n or Esc keeps it'}
      </Text>
    </Box>
  )
}
