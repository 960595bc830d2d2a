/**
 * What turning text into terms costs, the work every add and every index build does:
 * `node --import tsx bench/analyze.ts [--against DIR]`.
 *
 * Analyses the benchmark sets' texts (Latin script; $BENCH_DIR, as bench/recall.ts) in rounds,
 * CPU time per round, median of 13, and short facts in English, Japanese, Chinese and Thai.
 * With `--against DIR`, DIR holds another version's `src/` (for instance
 * `git archive <commit> src | tar -x -C DIR`, inside the repository so its imports resolve),
 * and each round runs both, alternated, so that the machine's load falls on both alike.
 */
import path from 'node:path'

import {locomo, locomoFacts, longMemEval} from './recall/sets.js'

type Analyze = (text: string) => {terms: string[]}

const here = path.resolve(import.meta.dirname, '..')
const against = process.argv.includes('--against') ? process.argv[process.argv.indexOf('--against') + 1] : undefined
const load = async (root: string): Promise<Analyze> =>
  ((await import(path.resolve(root, 'src/search/tokenize.ts'))) as {analyzeWords: Analyze}).analyzeWords
const versions: [string, Analyze][] = [['this', await load(here)]]
if (against) versions.unshift(['against', await load(against)])

const cpuMs = (work: () => void): number => {
  const start = process.cpuUsage()
  work()
  const used = process.cpuUsage(start)
  return (used.user + used.system) / 1000
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!

/** Runs `analyze` over `texts`, 13 rounds alternating the versions; the median per version. */
function measure(texts: string[]): string {
  const times = versions.map(() => [] as number[])
  for (let round = 0; round < 13; round++)
    versions.forEach(([, analyze], v) =>
      times[v]!.push(
        cpuMs(() => {
          for (const text of texts) analyze(text)
        }),
      ),
    )
  return versions.map(([name], v) => `${name} ${median(times[v]!).toFixed(0)} ms`).join(', ')
}

const WITHOUT_SPACES = /[\u0e00-\u0eff\u3040-\u30ff\u4e00-\u9fff]/
for (const [set, count] of [
  [locomo(), 20_000],
  [locomoFacts(), 20_000],
  [longMemEval(), 5000],
] as const) {
  const all = set.haystacks.flatMap((h) => h.docs.map((d) => d.content)).filter((t) => !WITHOUT_SPACES.test(t))
  const texts = Array.from({length: count}, (_, i) => all[i % all.length]!)
  const chars = Math.round(texts.reduce((n, t) => n + t.length, 0) / texts.length)
  console.log(`${set.name}: ${count} texts of ${chars} characters on average: ${measure(texts)}`)
}

const SHORT: Record<string, string[]> = {
  English: [
    'The office in Tokyo is on the third floor of the building',
    'Our database is hosted in the Shanghai data centre',
    'The coffee shop is on the third floor of the tower',
  ],
  Japanese: [
    '東京のオフィスはビルの3階にあります',
    '東京タワーの近くでランチを食べました',
    'ラーメンが好きで毎週水曜日に食べに行きます',
  ],
  Chinese: ['我们的数据库在上海的机房', '会议室在三楼，每周一开会', '小王喜欢喝咖啡，每天早上都去楼下买'],
  Thai: ['ร้านกาแฟอยู่ชั้นสามของตึก', 'ประชุมทีมทุกวันจันทร์', 'ฐานข้อมูลของเราอยู่ที่ศูนย์ข้อมูลเซี่ยงไฮ้'],
}
for (const [language, facts] of Object.entries(SHORT)) {
  const texts = Array.from({length: 30_000}, (_, i) => `${facts[i % facts.length]!} ${i}`)
  const [, analyze] = versions[versions.length - 1]!
  const per = median(Array.from({length: 5}, () => cpuMs(() => texts.forEach((t) => analyze(t))))) / texts.length
  console.log(`${language}, short facts: ${(per * 1000).toFixed(1)} µs each (this version)`)
}
