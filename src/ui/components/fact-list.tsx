import {Box, Text} from 'ink'

import {inert} from '../../cli/inert-text.js'
import {relativeTime} from '../../cli/render-time.js'
import type {FactRow} from '../backend.js'
import {Highlighted} from './highlighted.js'
import {windowOf} from './window.js'

export interface FactListProps {
  facts: FactRow[]
  selected: number
  query: string
  height: number
  now: Date
  /** False until the first results arrive, so an empty store and a slow read look different. */
  loaded: boolean
}

export function FactList({facts, selected, query, height, now, loaded}: FactListProps) {
  if (!loaded) return <Text dimColor>Loading…</Text>
  if (facts.length === 0) {
    return (
      <Text color="yellow">
        {query.trim() === '' ? 'No facts yet. Press n to add one.' : `No facts found for "${inert(query)}".`}
      </Text>
    )
  }
  const {start, end} = windowOf(facts.length, selected, height)
  const when = facts.slice(start, end).map((f) => relativeTime(f.created_at, now))
  const width = Math.max(...when.map((w) => w.length))
  return (
    <Box flexDirection="column">
      {facts.slice(start, end).map((fact, i) => {
        const current = start + i === selected
        return (
          <Box key={fact.id}>
            <Text color={current ? 'cyan' : undefined} bold={current}>
              {current ? '▸ ' : '  '}
            </Text>
            <Text color="green">{when[i]!.padEnd(width)}</Text>
            <Text> </Text>
            <Box flexGrow={1}>
              <Text wrap="truncate-end" inverse={current} dimColor={fact.context_for !== undefined}>
                {fact.context_for === undefined ? (
                  <Highlighted text={fact.content} query={query} />
                ) : (
                  <Text color="magenta">{`↳ ${inert(fact.content)}`}</Text>
                )}
                {fact.tags.length > 0 ? (
                  <Text color="cyan">{` ${fact.tags.map((t) => `#${inert(t)}`).join(' ')}`}</Text>
                ) : null}
              </Text>
            </Box>
          </Box>
        )
      })}
      {facts.length > end - start ? <Text dimColor>{`  ${selected + 1} of ${facts.length}`}</Text> : null}
    </Box>
  )
}
