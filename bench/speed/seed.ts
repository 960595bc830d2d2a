import {mkdirSync} from 'node:fs'

import {FACT_SEGMENT} from '../../src/store/file/collections.js'
import {DIR_MODE} from '../../src/store/file/durable-file.js'
import {newId} from '../../src/store/ids.js'
import {agentDir} from '../../src/store/file/paths.js'
import type {FactRecord} from '../../src/store/records.js'
import {bumpRevision, identitiesOf, readRevision} from '../../src/store/file/revision.js'
import {SegmentedFiles, segmentName} from '../../src/store/file/segments.js'
import {FactGenerator} from './facts.js'

/**
 * Writes `count` synthetic facts for one agent straight into segment files, in the store's
 * own format and segment bounds, the way months of memory_add calls would have left them
 * (one fact every few minutes), then stamps the revision once. Adding them one call at a
 * time would take hours at 100,000 facts and measure nothing new.
 */
export function seedAgent(home: string, agent: string, count: number, seed: number): void {
  const dir = agentDir(home, agent)
  mkdirSync(dir, {recursive: true, mode: DIR_MODE})
  const files = new SegmentedFiles<FactRecord>(dir, FACT_SEGMENT)
  const gen = new FactGenerator(seed)
  let time = Date.UTC(2024, 0, 1)
  let n = 1
  let records: FactRecord[] = []
  let bytes = 0
  const names: string[] = []
  const flush = (): void => {
    const name = segmentName(n++)
    files.write(name, records)
    names.push(`${FACT_SEGMENT.folder}/${name}`)
    records = []
    bytes = 0
  }
  for (let i = 0; i < count; i++) {
    time += 60_000 + gen.int(600_000)
    const fact = gen.fact()
    const record: FactRecord = {
      id: newId(time),
      content: fact.content,
      tags: fact.tags,
      created_at: new Date(time).toISOString(),
    }
    const size = JSON.stringify(record).length
    if (records.length >= FACT_SEGMENT.maxRecords || bytes + size > FACT_SEGMENT.maxBytes) flush()
    records.push(record)
    bytes += size + 1
  }
  if (records.length > 0) flush()
  bumpRevision(dir, readRevision(dir), identitiesOf(dir, names))
}
