/**
 * What a search index built from facts holds in memory, at each size: what a server or a rebuild
 * keeps for one agent once built, apart from the garbage collector's timing (peak RSS, which
 * import-memory.ts and the speed bench report, moves with it from run to run); and what its first
 * removal costs, which is when it works out each fact's own terms from its postings.
 *
 *   node --expose-gc --import tsx bench/index-memory.ts [facts ...]     default 10000 100000 200000
 *
 * Each size runs in a process of its own, on the facts of bench/speed/facts.ts (the speed
 * bench's corpus); memory is measured after a full collection, less what the facts take.
 */
import {spawnSync} from 'node:child_process'
import {fileURLToPath} from 'node:url'

import {FactIndex} from '../src/search/fact-index.js'
import {FactGenerator} from './speed/facts.js'

const gc = (globalThis as {gc?: () => void}).gc
if (gc === undefined) {
  console.error('run with node --expose-gc: the figures are taken after a full collection')
  process.exit(2)
}

const MiB = 1024 * 1024
const sizes = process.argv.slice(2).map(Number)

/** Full collections once the current task is over: until then V8 keeps some of what it made alive. */
async function settled(): Promise<void> {
  // Twice: typed arrays found dead are freed (and uncounted) by a sweep that ends after the collection.
  for (let i = 0; i < 2; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    gc!()
  }
}

/** Heap in use and typed arrays, in MiB, after a full collection, less what was there before. */
async function held(base: NodeJS.MemoryUsage): Promise<{heap: number; arrays: number}> {
  await settled()
  const now = process.memoryUsage()
  return {heap: (now.heapUsed - base.heapUsed) / MiB, arrays: (now.arrayBuffers - base.arrayBuffers) / MiB}
}

const cell = (h: {heap: number; arrays: number}) =>
  `${h.heap.toFixed(1)} + ${h.arrays.toFixed(1)} = ${(h.heap + h.arrays).toFixed(1)}`

/** One size, in this process: a row of the table. */
async function measure(n: number): Promise<void> {
  const gen = new FactGenerator(7)
  // Through JSON, so that every string is flat, as read from a file: V8 flattens a string built
  // by concatenation when it is first read, which would count as memory the index gave back.
  const facts = JSON.parse(
    JSON.stringify(
      Array.from({length: n}, (_, i) => {
        const f = gen.fact()
        return {
          id: `F${String(i).padStart(9, '0')}`,
          content: f.content,
          tags: f.tags,
          created_at: new Date(Date.UTC(2025, 0, 1) + i * 1000).toISOString(),
        }
      }),
    ),
  ) as {id: string; content: string; tags: string[]; created_at: string}[]
  await settled()
  const base = process.memoryUsage()
  const index = new FactIndex()
  const start = performance.now()
  for (const f of facts) index.add(f)
  const building = performance.now() - start
  const built = await held(base)
  const t = performance.now()
  index.remove(facts[0]!.id)
  const removal = performance.now() - t
  console.log(
    `| ${n.toLocaleString('en-US')} | ${cell(built)} | ${(building / 1000).toFixed(2)} s | ${removal.toFixed(1)} ms |`,
  )
  // The facts stay alive to the end, so that none of their strings count as the index's.
  if (index.size !== n - 1 || facts.length !== n) throw new Error('the index lost facts')
}

if (process.env.MEM_BENCH_ONE === '1') await measure(sizes[0]!)
else {
  console.log('| facts | held once built (heap + typed arrays, MiB) | time to build | the first removal |')
  console.log('| ---: | ---: | ---: | ---: |')
  // One process per size: memory a finished size gives back late would count against the next.
  for (const n of sizes.length > 0 ? sizes : [10_000, 100_000, 200_000]) {
    const run = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), String(n)], {
      env: {...process.env, MEM_BENCH_ONE: '1'},
      encoding: 'utf8',
    })
    if (run.status !== 0) throw new Error(run.stderr)
    process.stdout.write(run.stdout)
  }
}
