/**
 * Retrieval quality on the LoCoMo set: `node --import tsx bench/locomo.ts [--ablate]`
 * (`npm run bench:locomo`). Data from $LOCOMO_DIR, default ../shared/bench/locomo beside the
 * repo; it is licensed non-commercial, so it is read in place and never copied here.
 *
 * Prints, per question category, any@5/10, frac@5/10 and MRR@10 for mem end to end (each
 * conversation imported with its session dates, questions through memory_search) and for plain
 * BM25, then frac@10 / MRR@10 per conversation. --ablate adds one line per ranking choice
 * switched off (on mem's index, which ranks as the end-to-end path does), per conversation too.
 */
import {loadConversations, locomoDir, type Conversation} from './locomo/data.js'
import {formatTable, score, scoreByCategory, type Outcome} from './locomo/metrics.js'
import {memFactIndex, memImport, plainBm25, type RetrieverKind} from './locomo/retrievers.js'
import {evaluate} from './locomo/run.js'
import {DEFAULT_TUNING} from '../src/search/fact-index.js'

const dir = locomoDir()
const conversations = loadConversations(dir)
const turns = conversations.reduce((n, c) => n + c.turns.length, 0)
const questions = conversations.reduce((n, c) => n + c.queries.length, 0)
console.log(`LoCoMo from ${dir}: ${conversations.length} conversations, ${turns} turns, ${questions} questions\n`)

const mrr = (x: number) => x.toFixed(3).replace(/^0/, '')

/** Outcomes come back in conversation order: a gain that holds in each conversation is less likely to be luck on a few questions. */
function perConversation(name: string, outcomes: Outcome[], convs: readonly Conversation[]): string {
  let from = 0
  const cells = convs.map((c) => {
    const s = score(outcomes.slice(from, (from += c.queries.length)))
    return `${s.frac10.toFixed(1)} / ${mrr(s.mrr10)}`
  })
  return `| ${name} | ${cells.join(' | ')} |`
}

function perConversationHeader(title: string): string {
  return [`### ${title}`, '', `| retriever | ${conversations.map((c) => c.agentId).join(' | ')} |`, `| --- |${conversations.map(() => ' ---: |').join('')}`].join('\n')
}

const rows: string[] = []
for (const kind of [memImport, plainBm25]) {
  const started = performance.now()
  const outcomes = await evaluate(kind, conversations)
  const seconds = (performance.now() - started) / 1000
  console.log(formatTable(kind.name, scoreByCategory(outcomes)))
  console.log(`\n(${seconds.toFixed(1)} s to load ${turns} turns and run ${questions} searches)\n`)
  rows.push(perConversation(kind.name, outcomes, conversations))
}
console.log(perConversationHeader('frac@10 / MRR@10 per conversation'))
console.log(rows.join('\n') + '\n')

if (process.argv.includes('--ablate')) {
  const variants: RetrieverKind[] = [
    memFactIndex('all of mem'),
    memFactIndex('without the reply rule (a question lends its next fact only the usual share)', {replyShare: DEFAULT_TUNING.context}),
    memFactIndex('without date boost', {dateBoost: 1}),
    memFactIndex('without neighbour context (and so without the reply rule)', {context: 0}),
    memFactIndex('context reach 1 instead of 2', {contextReach: 1}),
    memFactIndex('without prefix/typo matching', {prefixMinLength: 0, fuzzyMinLength: 0}),
    memFactIndex('without context and date boost (stems + stopwords only)', {context: 0, dateBoost: 1}),
  ]
  const table = ['### Ablation (all questions)', '', '| variant | any@5 | any@10 | frac@5 | frac@10 | MRR@10 |', '| --- | ---: | ---: | ---: | ---: | ---: |']
  const byConv: string[] = []
  for (const kind of variants) {
    const outcomes = await evaluate(kind, conversations)
    const s = score(outcomes)
    table.push(`| ${kind.name} | ${s.any5.toFixed(1)} | ${s.any10.toFixed(1)} | ${s.frac5.toFixed(1)} | ${s.frac10.toFixed(1)} | ${mrr(s.mrr10)} |`)
    byConv.push(perConversation(kind.name, outcomes, conversations))
  }
  console.log(table.join('\n') + '\n')
  console.log(perConversationHeader('Ablation: frac@10 / MRR@10 per conversation'))
  console.log(byConv.join('\n') + '\n')
}
