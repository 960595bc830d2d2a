import {existsSync, rmSync} from 'node:fs'

import {contentDigest} from '../meaning/content-digest.js'
import {readMeaningSettings} from '../meaning/settings.js'
import {embedderFor} from '../meaning/open-meaning.js'
import {readVectors, rewriteVectors, vectorFileModel, type StoredVector} from '../meaning/vector-file.js'
import {plural} from '../plural.js'
import {FACT_SEGMENT} from '../store/file/collections.js'
import {SegmentedFiles} from '../store/file/segments.js'
import {vectorsPath} from '../store/file/vector-keeper.js'
import {isLive, type FactRecord} from '../store/records.js'
import type {CheckTarget, Finding} from './inspect.js'

/**
 * Checks an agent's vectors of meaning (cache/vectors.bin, src/meaning/vector-file.ts): derived
 * data, so every repair makes them again rather than restoring them.
 * - Another model's vectors, when meaning is on with another: searches use none of them; --fix
 *   removes the file, and the background embedding or `mem embed` makes them with the model in use.
 * - Records that fail their checksum, and vectors made from other content than their fact's
 *   now (a fact whose file was edited by hand): --fix rewrites the file with the good vectors of
 *   live facts only, which also drops those of replaced and deleted facts.
 * Facts still waiting for their vector are no problem: `mem search` says how many.
 */
export function vectorsCheck({home, dir, agent}: CheckTarget): Finding[] {
  const path = vectorsPath(dir)
  const model = existsSync(path) ? vectorFileModel(path) : undefined
  if (model === undefined) return []
  const settings = readMeaningSettings(home, {})
  const inUse = embedderFor(settings.embedder, {}).id
  if (settings.on && model.embedder !== inUse)
    return [
      {
        kind: 'vectors',
        path,
        agent,
        problem: `the vectors are ${model.embedder}'s, and meaning now uses ${inUse}: searches use none of them`,
        fix: 'remove them; "mem embed" (or a server, in the background) makes them with the model in use',
        fixed: false,
        repair: () => rmSync(path, {force: true}),
      },
    ]
  const read = readVectors(path, model.embedder, model.dimensions)
  let live: Map<string, FactRecord>
  try {
    live = liveFacts(dir)
  } catch {
    // A fact file that does not read: reported (and repaired) as a data file; the vectors are checked next time.
    return []
  }
  const latest = new Map<string, StoredVector>(read.records.map((r) => [r.id, r]))
  const stale = [...latest.values()].filter((r) => {
    const fact = live.get(r.id)
    return fact !== undefined && contentDigest(fact.content) !== r.digest
  })
  if (read.damaged === 0 && stale.length === 0) return []
  const wrong = [
    ...(read.damaged > 0 ? [`${plural(read.damaged, 'damaged record')} (failed checksum)`] : []),
    ...(stale.length > 0 ? [`${plural(stale.length, 'vector')} made from other content than the fact holds now`] : []),
  ]
  return [
    {
      kind: 'vectors',
      path,
      agent,
      problem: `the vectors file holds ${wrong.join(' and ')}: searches by meaning would rank those facts by what they no longer say`,
      fix: 'rewrite it with the good vectors of live facts only; "mem embed" makes the rest again',
      fixed: false,
      repair: () => {
        const good = [...latest.values()].filter((r) => {
          const fact = live.get(r.id)
          return fact !== undefined && contentDigest(fact.content) === r.digest
        })
        if (!rewriteVectors(path, model.embedder, model.dimensions, good))
          throw new Error(`${path} could not be rewritten (is the disk full?)`)
      },
    },
  ]
}

function liveFacts(dir: string): Map<string, FactRecord> {
  const files = new SegmentedFiles<FactRecord>(dir, FACT_SEGMENT)
  const live = new Map<string, FactRecord>()
  for (const name of files.names())
    for (const fact of files.read(name).records) if (isLive(fact)) live.set(fact.id, fact)
  return live
}
