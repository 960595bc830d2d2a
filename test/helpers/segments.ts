import {agentDir} from '../../src/store/paths.js'
import {bumpRevision, identitiesOf, readRevision} from '../../src/store/revision.js'
import {segmentName} from '../../src/store/segments.js'

/**
 * Stamps the first `count` fact segments of `agent` in the revision file as mem stamps what it
 * writes, for segments a test wrote straight into the folder: a file no stamp vouches for is
 * decoded by every operation.
 */
export function stampFactSegments(home: string, count: number, agent = 'default'): void {
  const dir = agentDir(home, agent)
  bumpRevision(
    dir,
    readRevision(dir),
    identitiesOf(
      dir,
      Array.from({length: count}, (_, i) => `facts/${segmentName(i + 1)}`),
    ),
  )
}
