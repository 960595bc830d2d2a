import {Box, Text} from 'ink'

import type {Line as TypedLine} from '../line-edit.js'
import {Line} from './line.js'
import {cursorRows} from './typed-line.js'
import {windowOf} from './window.js'

/** The border and padding around the draft take two cells on each side. */
const FRAME = 4

export function Editor({
  title,
  draft,
  busy,
  width,
  height,
}: {
  title: string
  draft: TypedLine
  busy: boolean
  width: number
  height: number
}) {
  const {rows, at} = cursorRows(draft, width - FRAME)
  // A draft taller than the screen shows the rows around the cursor.
  const {start, end} = windowOf(rows.length, at, height - 3 - (busy ? 1 : 0))
  return (
    <Box flexDirection="column">
      <Line spans={[{text: title, bold: true}]} width={width} />
      <Box borderStyle="round" borderColor="cyan" paddingX={1} flexDirection="column" width={width}>
        {rows.slice(start, end).map((spans, i) => (
          <Line
            key={start + i}
            spans={busy ? spans.map((s) => ({...s, inverse: undefined})) : spans}
            width={width - FRAME}
          />
        ))}
      </Box>
      {/* The status bar below says which keys save and cancel. */}
      {busy ? <Text dimColor>Saving…</Text> : null}
    </Box>
  )
}
