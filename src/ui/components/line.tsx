import {Text} from 'ink'

import {fitSpans, type Span} from '../cells.js'

/**
 * One row of the screen: styled spans cut to `width` cells with an ellipsis, so nothing a
 * fact holds can wrap into the rows below. Every row the browser draws goes through here.
 */
export function Line({spans, width}: {spans: readonly Span[]; width: number}) {
  const fitted = fitSpans(spans, width)
  if (fitted.length === 0) return <Text> </Text>
  return (
    <Text wrap="truncate-end">
      {fitted.map((s, i) => (
        <Text key={i} color={s.color} bold={s.bold} dimColor={s.dim} inverse={s.inverse}>
          {s.text}
        </Text>
      ))}
    </Text>
  )
}
