import {Box, Text} from 'ink'

import {inert} from '../../cli/inert-text.js'

export function Editor({title, draft, busy}: {title: string; draft: string; busy: boolean}) {
  return (
    <Box flexDirection="column">
      <Text bold>{title}</Text>
      <Box borderStyle="round" borderColor="cyan" paddingX={1}>
        <Text>
          {inert(draft)}
          {busy ? null : <Text inverse> </Text>}
        </Text>
      </Box>
      {/* The status bar below says which keys save and cancel. */}
      {busy ? <Text dimColor>Saving…</Text> : null}
    </Box>
  )
}
