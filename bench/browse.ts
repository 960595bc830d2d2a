/**
 * What `mem browse` costs over a large agent: `npm run bench:browse` (5,001 and 100,000 facts),
 * or `npm run bench:browse -- --sizes 5001`.
 *
 * The browser holds only the rows around its cursor and reloads them every second (it polls for
 * what other processes write), so the cost that matters is one load: a page of the list at its
 * start, middle and end, and a search as you type, each through the backend the browser uses
 * (src/ui/backend.ts) over one long-lived store, as `mem browse` runs. A key typed in the search
 * box costs one search; each reload while searching also counts the live facts. Also printed:
 * the rows a page holds, and the heap used once every kind of load has run. Facts are synthetic
 * (bench/speed/facts.ts, seeded) and go to the system temp folder, removed afterwards.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {parseArgs} from 'node:util'

import {openStore} from '../src/store/open-store.js'
import {operationsBackend, SEARCH_LIMIT, type Backend} from '../src/ui/backend.js'
import {seedAgent} from './speed/seed.js'
import {ms, summarize} from './speed/stats.js'

const {values: opts} = parseArgs({
  options: {sizes: {type: 'string', default: '5001,100000'}, runs: {type: 'string', default: '30'}},
})
const sizes = opts.sizes.split(',').map(Number)
const runs = Number(opts.runs)
/** What the browser asks for on a 24-row terminal: 300 rows around the cursor (src/ui/state.ts pageOf). */
const PAGE = 300

async function time(load: () => Promise<unknown>): Promise<string> {
  await load()
  const samples: number[] = []
  for (let i = 0; i < runs; i++) {
    const start = performance.now()
    await load()
    samples.push(performance.now() - start)
  }
  const s = summarize(samples)
  return `${ms(s.median)} | ${ms(s.p95)}`
}

async function bench(backend: Backend, count: number): Promise<string[]> {
  const page = (offset: number) => () => backend.facts('bench', '', {offset, limit: PAGE})
  const middle = await backend.facts('bench', '', {offset: Math.floor(count / 2), limit: 1})
  // The longest word of a fact in the middle: a made-up name that few facts share.
  const rare = middle.facts[0]!.content.split(/\W+/).sort((a, b) => b.length - a.length)[0]!
  const search = (query: string) => () => backend.facts('bench', query, {offset: 0, limit: SEARCH_LIMIT})
  const found = await backend.facts('bench', rare, {offset: 0, limit: SEARCH_LIMIT})
  const rows = [
    ['list, first page', await time(page(0))],
    ['list, middle page', await time(page(Math.floor(count / 2)))],
    ['list, last page', await time(page(Math.max(0, count - PAGE)))],
    ['search as you type, best 100 ("prefers")', await time(search('prefers'))],
    [`search as you type, ${found.search!.matches} matches`, await time(search(rare))],
    ['live facts counted (each reload while searching)', await time(() => backend.liveFacts('bench'))],
  ]
  const heap = (process.memoryUsage().heapUsed / 2 ** 20).toFixed(0)
  return [
    ...rows.map(([what, times]) => `| ${what} | ${count.toLocaleString('en')} | ${runs} | ${times} |`),
    `| heap used after these loads: ${heap} MB; a page holds ${PAGE} rows | ${count.toLocaleString('en')} | | | |`,
  ]
}

const lines = ['| load | facts | n | median ms | p95 ms |', '| --- | ---: | ---: | ---: | ---: |']
for (const count of sizes) {
  const home = mkdtempSync(join(tmpdir(), 'mem-bench-browse-'))
  try {
    seedAgent(home, 'bench', count, 7)
    const store = openStore(home, {shortLived: false})
    lines.push(...(await bench(operationsBackend({store, defaultAgent: 'bench'}), count)))
    await store.close()
  } finally {
    rmSync(home, {recursive: true, force: true})
  }
}
console.log(lines.join('\n'))
