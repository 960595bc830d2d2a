import {Box, Text} from 'ink'

export function SearchBar({query, typing}: {query: string; typing: boolean}) {
  if (!typing && query === '') return <Text dimColor>Newest first · press / to search</Text>
  return (
    <Box>
      <Text color={typing ? 'cyan' : undefined} bold>
        {'/ '}
      </Text>
      <Text>{query}</Text>
      {typing ? <Text inverse> </Text> : <Text dimColor>{'  (ranked by relevance · Esc clears)'}</Text>}
    </Box>
  )
}
