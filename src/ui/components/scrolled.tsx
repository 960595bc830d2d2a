import {Box} from 'ink'

import type {Span} from '../cells.js'
import {Line} from './line.js'

/**
 * Lines longer than the screen, from line `scroll` on; when they do not all fit, the last row
 * says which are shown. Never more rows than `height`, whatever the text.
 */
export function Scrolled({
  lines,
  height,
  width,
  scroll,
}: {
  lines: readonly Span[][]
  height: number
  width: number
  scroll: number
}) {
  const fits = lines.length <= height
  const rows = fits ? height : Math.max(1, height - 1)
  const top = Math.min(scroll, Math.max(0, lines.length - rows))
  return (
    <Box flexDirection="column">
      {lines.slice(top, top + rows).map((spans, i) => (
        <Line key={top + i} spans={spans} width={width} />
      ))}
      {fits ? null : (
        <Line
          spans={[
            {text: `lines ${top + 1}-${Math.min(lines.length, top + rows)} of ${lines.length} · ↑↓ scroll`, dim: true},
          ]}
          width={width}
        />
      )}
    </Box>
  )
}
