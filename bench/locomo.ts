/**
 * Retrieval quality on the LoCoMo set: `node --import tsx bench/locomo.ts [--ablate]`
 * (`npm run bench:locomo`). Data from $LOCOMO_DIR, default ../shared/bench/locomo beside the
 * repo; it is licensed non-commercial, so it is read in place and never copied here.
 *
 * Prints, per question category, any@5/10, frac@5/10 and MRR@10 for mem end to end (through
 * its operations), for mem's index given the turns' session dates, and for plain BM25.
 * --ablate adds one line per ranking choice switched off, to show what each is worth.
 */
import {loadConversations, locomoDir} from './locomo/data.js'
import {formatTable, score, scoreByCategory} from './locomo/metrics.js'
import {memFactIndex, memOperations, plainBm25, type RetrieverKind} from './locomo/retrievers.js'
import {evaluate} from './locomo/run.js'

const dir = locomoDir()
const conversations = loadConversations(dir)
const turns = conversations.reduce((n, c) => n + c.turns.length, 0)
const questions = conversations.reduce((n, c) => n + c.queries.length, 0)
console.log(`LoCoMo from ${dir}: ${conversations.length} conversations, ${turns} turns, ${questions} questions\n`)

const perConversation: string[] = []
for (const kind of [memOperations, memFactIndex(), plainBm25]) {
  const started = performance.now()
  const outcomes = await evaluate(kind, conversations)
  const seconds = (performance.now() - started) / 1000
  console.log(formatTable(kind.name, scoreByCategory(outcomes)))
  console.log(`\n(${seconds.toFixed(1)} s for ${turns} adds and ${questions} searches)\n`)
  // Outcomes come back in conversation order: a gain that holds in each conversation is less
  // likely to be luck on a few questions.
  let from = 0
  const cells = conversations.map((c) => {
    const s = score(outcomes.slice(from, (from += c.queries.length)))
    return `${s.frac10.toFixed(1)} / ${s.mrr10.toFixed(3).replace(/^0/, '')}`
  })
  perConversation.push(`| ${kind.name} | ${cells.join(' | ')} |`)
}
console.log('### frac@10 / MRR@10 per conversation\n')
console.log(`| retriever | ${conversations.map((c) => c.agentId).join(' | ')} |`)
console.log(`| --- |${conversations.map(() => ' ---: |').join('')}`)
console.log(perConversation.join('\n') + '\n')

if (process.argv.includes('--ablate')) {
  const variants: RetrieverKind[] = [
    memFactIndex('all of mem (session dates)'),
    memFactIndex('without date boost', {dateBoost: 1}),
    memFactIndex('without neighbour context', {context: 0}),
    memFactIndex('context reach 1 instead of 2', {contextReach: 1}),
    memFactIndex('without prefix/fuzzy', {prefixMinLength: 0, fuzzyMinLength: 0}),
    memFactIndex('without context and date boost (stems + stopwords only)', {context: 0, dateBoost: 1}),
  ]
  console.log('### Ablation (all questions)\n')
  console.log('| variant | any@5 | any@10 | frac@5 | frac@10 | MRR@10 |')
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |')
  for (const kind of variants) {
    const s = score(await evaluate(kind, conversations))
    console.log(`| ${kind.name} | ${s.any5.toFixed(1)} | ${s.any10.toFixed(1)} | ${s.frac5.toFixed(1)} | ${s.frac10.toFixed(1)} | ${s.mrr10.toFixed(3).replace(/^0/, '')} |`)
  }
}
