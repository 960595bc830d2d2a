import {writeFileSync} from 'node:fs'

import {newId} from '../../src/store/ids.js'
import {EXPORT_FORMAT, EXPORT_VERSION} from '../../src/transfer/export-format.js'
import {FactGenerator, type SyntheticFact} from './facts.js'

/** A corpus of synthetic facts as one agent's `mem export` file, the input of both stores' imports. */
export interface Corpus {
  file: string
  facts: SyntheticFact[]
}

/**
 * Writes `count` seeded facts (bench/speed/facts.ts) for `agent` as a `mem export` file, dated
 * a few minutes apart as months of memory_add calls would leave them. The same seed gives the
 * same facts; their ids are new on each run, as an export's would be.
 */
export function writeCorpus(file: string, agent: string, count: number, seed: number): Corpus {
  const gen = new FactGenerator(seed)
  const facts: SyntheticFact[] = []
  const lines = [JSON.stringify({type: 'header', format: EXPORT_FORMAT, version: EXPORT_VERSION})]
  let time = Date.UTC(2024, 0, 1)
  for (let i = 0; i < count; i++) {
    time += 60_000 + gen.int(600_000)
    const fact = gen.fact()
    facts.push(fact)
    const line = {
      type: 'fact',
      agent_id: agent,
      id: newId(time),
      content: fact.content,
      tags: fact.tags,
      created_at: new Date(time).toISOString(),
    }
    lines.push(JSON.stringify(line))
  }
  writeFileSync(file, `${lines.join('\n')}\n`, {mode: 0o600})
  return {file, facts}
}

/**
 * `count` facts that none of `taken` says, so every live add stores something new (an add that
 * repeats a stored fact is answered by the duplicate guard of both stores, a shorter path).
 */
export function newFacts(gen: FactGenerator, taken: readonly SyntheticFact[], count: number): SyntheticFact[] {
  const seen = new Set(taken.map((f) => f.content))
  const out: SyntheticFact[] = []
  while (out.length < count) {
    const fact = gen.fact()
    if (seen.has(fact.content)) continue
    seen.add(fact.content)
    out.push(fact)
  }
  return out
}
