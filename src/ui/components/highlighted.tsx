import {Text} from 'ink'

import {inert} from '../../cli/inert-text.js'
import {highlight} from '../../cli/render-highlight.js'

/** Text with the words a query matches shown in bold yellow, as `mem search` shows them; stored text shown inert. */
export function Highlighted({text, query}: {text: string; query: string}) {
  return (
    <Text>
      {highlight(inert(text), query).map((span, i) =>
        span.match ? (
          <Text key={i} bold color="yellow">
            {span.text}
          </Text>
        ) : (
          span.text
        ),
      )}
    </Text>
  )
}
