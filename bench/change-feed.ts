/**
 * What the file store's change feed costs: `node --import tsx bench/change-feed.ts [facts] [rounds]`
 * (defaults 100,000 facts and 50 rounds). Seeds one agent with synthetic facts (bench/speed),
 * then, in one process and for each way the store runs (a long-running process, one command
 * per process), times Store.changesSince from no cursor (a reset: every fact), from an up-to-date
 * cursor (nothing changed), and from the cursor before one add; and getFacts of ten ids spread
 * over the agent. Prints medians and 95th percentiles in milliseconds.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'

import {FileStore} from '../src/store/file/file-store.js'
import {seedAgent} from './speed/seed.js'
import {ms, summarize} from './speed/stats.js'

const facts = Number(process.argv[2] ?? 100_000)
const rounds = Number(process.argv[3] ?? 50)
const AGENT = 'bench'
const home = mkdtempSync(join(tmpdir(), 'mem-feed-'))

async function timed<T>(run: () => Promise<T>): Promise<{ms: number; value: T}> {
  const start = performance.now()
  const value = await run()
  return {ms: performance.now() - start, value}
}

function line(what: string, samples: number[]): void {
  const s = summarize(samples)
  console.log(`  ${what.padEnd(40)} median ${ms(s.median).padStart(7)}  p95 ${ms(s.p95).padStart(7)}  (n ${s.n})`)
}

try {
  seedAgent(home, AGENT, facts, 1)
  console.log(`${facts.toLocaleString('en')} facts, ${rounds} rounds each:`)
  for (const shortLived of [false, true]) {
    console.log(shortLived ? 'one command per process:' : 'a long-running process:')
    const store = new FileStore(home, {shortLived})
    const reset = await timed(() => store.changesSince(AGENT))
    line(`from no cursor (${reset.value.facts.length.toLocaleString('en')} facts)`, [reset.ms])
    let cursor = reset.value.cursor
    const ids = reset.value.facts.filter((_, i, all) => i % Math.ceil(all.length / 10) === 0).map((f) => f.id)
    const idle: number[] = []
    const added: number[] = []
    const bulk: number[] = []
    for (let i = 0; i < rounds; i++) {
      const none = await timed(() => store.changesSince(AGENT, cursor))
      if (none.value.reset || none.value.facts.length > 0) throw new Error('an idle cursor gave changes')
      idle.push(none.ms)
      await store.addFact(AGENT, {content: `a new fact ${i} ${shortLived}`, tags: []})
      const one = await timed(() => store.changesSince(AGENT, cursor))
      if (one.value.reset || one.value.facts.length !== 1) throw new Error('one add did not give one fact')
      added.push(one.ms)
      cursor = one.value.cursor
      bulk.push((await timed(() => store.getFacts(AGENT, ids))).ms)
    }
    line('from an up-to-date cursor', idle)
    line('from the cursor before one add', added)
    line(`getFacts of ${ids.length} ids`, bulk)
    await store.close()
  }
} finally {
  rmSync(home, {recursive: true, force: true})
}
