/**
 * Recall on three benchmark sets, each loaded the way its shape calls for, through mem's real
 * operations: `node --import tsx bench/recall.ts [--set locomo|locomo-facts|longmemeval] [--ablate]`
 * (`npm run bench:recall`). Data is read in place from $BENCH_DIR, default ../shared/bench beside
 * the repository (the sets are licensed for measuring only: never copy them here).
 *
 * - locomo: dialog turns, `mem import` with one thread per session and the session dates;
 * - locomo-facts: the same conversations' standalone observations, one memory_add each, no thread;
 * - longmemeval: chat histories, one agent per question, `mem import` with one thread per session
 *   and each turn's created_at.
 *
 * Prints, per category, mem next to two baselines from the same run: plain BM25 (MiniSearch's
 * defaults) and tuned BM25 (with stopwords, prefixes and typos: the one the sets' READMEs quote
 * for the halves kept aside, so figures here can be set beside those), the share of returned
 * facts (not marked as context) that share no word with the question, and mem's lead over tuned
 * BM25 with a 90 % interval. Beside mem with words alone, mem with meaning on (the model shipped
 * with mem; --no-meaning leaves it out), end to end: loaded, embedded as `mem embed` does, then
 * searched, with meaning's lead over words alone and what the embedding cost. Vectors are cached
 * outside the repository (bench/recall/cached-embedder.ts), so only the first run embeds every set.
 * --ablate adds, per set, one line per ranking feature switched off (on mem's index, fed as the
 * operations feed it), the blend of meaning with other weights, and both baselines.
 * --per-agent adds, for sets of a few large agents (the LoCoMo conversations), mem's figures on
 * each: how far they spread says how much a figure may move on conversations kept aside.
 */
import {LocalEmbedder} from '../src/meaning/local-embedder.js'
import {DEFAULT_TUNING} from '../src/search/fact-index.js'
import {CachedEmbedder} from './recall/cached-embedder.js'
import {formatLead} from './recall/lead.js'
import {formatSideBySide, mrr, score, scoreByCategory} from './recall/metrics.js'
import {memIndex, memOperations, memWithMeaning, plainBm25, tunedBm25, type RetrieverKind} from './recall/retrievers.js'
import {evaluate, type Outcome} from './recall/run.js'
import {locomo, locomoFacts, longMemEval, type RecallSet} from './recall/sets.js'

const wanted = process.argv.includes('--set') ? process.argv[process.argv.indexOf('--set') + 1] : undefined
const loaders: Record<string, () => RecallSet> = {locomo, 'locomo-facts': locomoFacts, longmemeval: longMemEval}
if (wanted !== undefined && !(wanted in loaders))
  throw new Error(`--set takes one of ${Object.keys(loaders).join(', ')}`)
// Meaning on beside off, with the model shipped with mem; --no-meaning leaves it out.
const embedder = process.argv.includes('--no-meaning') ? undefined : new CachedEmbedder(new LocalEmbedder())

for (const [name, load] of Object.entries(loaders)) {
  if (wanted !== undefined && name !== wanted) continue
  const set = load()
  const docs = set.haystacks.reduce((n, h) => n + h.docs.length, 0)
  const questions = set.haystacks.reduce((n, h) => n + h.questions.length, 0)
  console.log(
    `## ${set.name}: ${set.haystacks.length} agents, ${docs} facts (${set.load === 'add' ? 'one memory_add each' : 'mem import'}), ${questions} questions\n`,
  )
  const started = performance.now()
  const outcomes = await evaluate(memOperations, set)
  const ours = scoreByCategory(outcomes, set.categories)
  const seconds = (performance.now() - started) / 1000
  const meaning = embedder && (await withMeaning(embedder, set))
  const tuned = await evaluate(tunedBm25, set)
  const columns = [
    {label: 'mem', scores: ours},
    ...(meaning === undefined
      ? []
      : [{label: 'mem + meaning', scores: scoreByCategory(meaning.outcomes, set.categories)}]),
    {label: 'plain BM25', scores: scoreByCategory(await evaluate(plainBm25, set), set.categories)},
    {label: 'tuned BM25', scores: scoreByCategory(tuned, set.categories)},
  ]
  console.log(formatSideBySide(set.name, columns))
  console.log(`\n(mem: ${seconds.toFixed(1)} s to load and search)\n`)
  console.log(formatLead(set.name, outcomes, tuned, 'tuned BM25'))
  if (meaning) {
    console.log(
      `(mem + meaning: ${meaning.seconds.toFixed(1)} s to load, embed and search; ${meaning.made} texts embedded by ${embedder!.id}, the rest from the cache)\n`,
    )
    console.log(
      formatLead(set.name, meaning.outcomes, outcomes, 'mem (words alone)').replace("mem's lead", "meaning's lead"),
    )
  }
  if (process.argv.includes('--per-agent'))
    console.log(
      set.haystacks.length <= 10
        ? perAgent(set, outcomes)
        : `(--per-agent: ${set.haystacks.length} agents of ${Math.round(questions / set.haystacks.length)} question(s) each, too few for figures of their own)\n`,
    )

  if (process.argv.includes('--ablate')) {
    const variants: RetrieverKind[] = [
      memIndex('all of mem'),
      memIndex('without thread context (and so without the reply rule)', {context: 0}),
      memIndex('without the reply rule (a question lends its next turn the usual share)', {
        replyShare: DEFAULT_TUNING.context,
      }),
      memIndex('without date boost', {dateBoost: 1}),
      memIndex('without leaving out facts matched only by weak verbs', {weakWords: []}),
      memIndex('without prefix and typo matching', {prefixMinLength: 0, fuzzyMinLength: 0}),
      memIndex("without idf squared (BM25's single idf)", {idfPower: 1}),
      ...(embedder === undefined
        ? []
        : [
            memIndex('with meaning', {}, embedder),
            memIndex('with meaning, words weighing 0.7', {meaning: {...DEFAULT_TUNING.meaning, words: 0.7}}, embedder),
            memIndex(
              'with meaning, words weighing 0.95',
              {meaning: {...DEFAULT_TUNING.meaning, words: 0.95}},
              embedder,
            ),
            memIndex(
              'with meaning, no floor for facts found by meaning alone',
              {meaning: {...DEFAULT_TUNING.meaning, floor: -1}},
              embedder,
            ),
            memIndex(
              'with meaning, no fact by meaning alone',
              {meaning: {...DEFAULT_TUNING.meaning, floor: 2}},
              embedder,
            ),
          ]),
      plainBm25,
      tunedBm25,
    ]
    const lines = [
      `### Ablation: ${set.name}`,
      '',
      '| variant | any@10 | frac@10 | MRR@10 | session any@10 | strays % |',
      '| --- | ---: | ---: | ---: | ---: | ---: |',
    ]
    for (const kind of variants) {
      const s = score(await evaluate(kind, set))
      lines.push(
        `| ${kind.name} | ${s.any10.toFixed(1)} | ${s.frac10.toFixed(1)} | ${mrr(s.mrr10)} | ${s.sessionAny10 === undefined ? '–' : s.sessionAny10.toFixed(1)} | ${s.strays.toFixed(1)} |`,
      )
    }
    console.log(lines.join('\n') + '\n')
  }
}
await embedder?.close()

/** The set with meaning on, end to end, and what it cost: seconds, and texts the model embedded (not from the cache). */
async function withMeaning(
  embedder: CachedEmbedder,
  set: RecallSet,
): Promise<{outcomes: Outcome[]; seconds: number; made: number}> {
  const made = embedder.made
  const started = performance.now()
  const outcomes = await evaluate(memWithMeaning(embedder), set)
  return {outcomes, seconds: (performance.now() - started) / 1000, made: embedder.made - made}
}

function perAgent(set: RecallSet, outcomes: Outcome[]): string {
  const lines = [
    `### Per agent: ${set.name} (mem, all categories)`,
    '',
    '| agent | facts | questions | any@10 | frac@10 | MRR@10 |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
  ]
  for (const h of set.haystacks) {
    const s = score(outcomes.filter((o) => o.haystack === h.name))
    lines.push(
      `| ${h.name} | ${h.docs.length} | ${s.n} | ${s.any10.toFixed(1)} | ${s.frac10.toFixed(1)} | ${mrr(s.mrr10)} |`,
    )
  }
  return lines.join('\n') + '\n'
}
