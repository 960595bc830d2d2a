/**
 * What `explain` costs a warm search: `node --import tsx bench/explain-cost.ts [facts] [pairs]`
 * (build first: `npm run build`; defaults 100,000 facts and 300 pairs). Seeds one agent with
 * synthetic facts (bench/speed), starts `mem mcp serve`, and times memory_search over the SDK
 * client in pairs, the same query without and with `explain`, alternating which goes first, so
 * that a busy machine slows both alike. Prints medians, 95th percentiles and their ratios.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {FactGenerator} from './speed/facts.js'
import {seedAgent} from './speed/seed.js'
import {ms, summarize} from './speed/stats.js'
import {Server} from './speed/warm.js'

const facts = Number(process.argv[2] ?? 100_000)
const pairs = Number(process.argv[3] ?? 300)
const AGENT = 'bench'
const home = mkdtempSync(join(tmpdir(), 'mem-explain-'))
try {
  seedAgent(home, AGENT, facts, 1)
  const server = await Server.start(home, AGENT)
  const gen = new FactGenerator(2)
  // The first search loads the index; a few more warm the code paths of both.
  for (let i = 0; i < 20; i++) await server.call('memory_search', {query: gen.query(), explain: i % 2 === 0})
  const plain: number[] = []
  const explained: number[] = []
  for (let i = 0; i < pairs; i++) {
    const query = gen.query()
    const order = i % 2 === 0 ? [false, true] : [true, false]
    for (const explain of order) {
      const {ms: took} = await server.call('memory_search', {query, ...(explain ? {explain: true} : {})})
      ;(explain ? explained : plain).push(took)
    }
  }
  await server.close()
  const a = summarize(plain)
  const b = summarize(explained)
  console.log(`${facts.toLocaleString('en')} facts, ${pairs} pairs of warm memory_search (limit 10):`)
  console.log(`  without explain: median ${ms(a.median)} ms, p95 ${ms(a.p95)} ms`)
  console.log(`  with explain:    median ${ms(b.median)} ms, p95 ${ms(b.p95)} ms`)
  console.log(`  ratio: median ${(b.median / a.median).toFixed(3)}, p95 ${(b.p95 / a.p95).toFixed(3)}`)
} finally {
  rmSync(home, {recursive: true, force: true})
}
