import {FACT_SEGMENT} from '../../src/store/file/collections.js'
import {newId} from '../../src/store/ids.js'
import {agentDir} from '../../src/store/file/paths.js'
import type {FactRecord} from '../../src/store/records.js'
import {bumpRevision, identitiesOf, readRevision} from '../../src/store/file/revision.js'
import {SegmentedFiles, segmentName} from '../../src/store/file/segments.js'

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

/**
 * `count` facts written straight into segment files of at most `perSegment`, as another process
 * would leave them, a minute apart (turns of the thread `thread` names, if any); returns the segments' paths.
 */
export function writeFactSegments(
  home: string,
  count: number,
  perSegment: number,
  content: (i: number) => string,
  thread: (i: number) => string | undefined = () => undefined,
): string[] {
  const files = new SegmentedFiles<FactRecord>(agentDir(home, 'default'), FACT_SEGMENT)
  let time = Date.UTC(2025, 0, 1)
  const paths: string[] = []
  for (let start = 0, n = 1; start < count; start += perSegment, n++) {
    const records: FactRecord[] = []
    for (let i = start; i < Math.min(count, start + perSegment); i++) {
      time += 60_000
      const turn = thread(i)
      records.push({
        id: newId(time),
        content: content(i),
        tags: [],
        created_at: new Date(time).toISOString(),
        ...(turn === undefined ? {} : {thread: turn}),
      })
    }
    files.write(segmentName(n), records)
    paths.push(files.path(segmentName(n)))
  }
  return paths
}
