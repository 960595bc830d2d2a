/**
 * Retrieval quality on the LoCoMo set: `node --import tsx bench/locomo.ts`
 * (data from $LOCOMO_DIR, default ../shared/bench/locomo next to the repo).
 */
import {loadConversations, locomoDir} from './locomo/data.js'
import {formatTable, scoreByCategory} from './locomo/metrics.js'
import {memFactIndex, plainBm25} from './locomo/retrievers.js'
import {evaluate} from './locomo/run.js'

const dir = locomoDir()
const conversations = loadConversations(dir)
const turns = conversations.reduce((n, c) => n + c.turns.length, 0)
const questions = conversations.reduce((n, c) => n + c.queries.length, 0)
console.log(`LoCoMo from ${dir}: ${conversations.length} conversations, ${turns} turns, ${questions} questions\n`)

for (const kind of [memFactIndex, plainBm25]) {
  const started = performance.now()
  const outcomes = await evaluate(kind, conversations)
  const ms = performance.now() - started
  console.log(formatTable(kind.name, scoreByCategory(outcomes)))
  console.log(`\n(${(ms / 1000).toFixed(2)} s including indexing)\n`)
}
