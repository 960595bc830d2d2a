import {Box, Text} from 'ink'

import {inert} from '../../cli/inert-text.js'

export function SearchBar({query, typing}: {query: string; typing: boolean}) {
  if (!typing && query === '') return <Text dimColor>Newest first · press / to search</Text>
  return (
    <Box>
      <Text color={typing ? 'cyan' : undefined} bold>
        {'/ '}
      </Text>
      <Text>{inert(query)}</Text>
      {typing ? <Text inverse> </Text> : <Text dimColor>{'  (ranked by relevance · Esc clears)'}</Text>}
    </Box>
  )
}
