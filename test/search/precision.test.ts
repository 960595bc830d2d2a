import assert from 'node:assert/strict'

import {connectMcp, type McpSession} from '../helpers/mcp.js'
import {tempHome} from '../helpers/mem.js'
import {sharesAWord} from '../../bench/recall/words.js'
import {analyze, toTerm, tokenize} from '../../src/search/tokenize.js'
import {FACTS} from './standalone-facts.js'

type Kind = 'keyword' | 'question' | 'typo' | 'prefix' | 'weak'

/** Each query and the fact it is after (by its opening words). */
const QUERIES: [Kind, string, string][] = [
  ['keyword', 'package manager', 'Alice prefers pnpm'],
  ['keyword', 'pnpm', 'Alice prefers pnpm'],
  ['keyword', 'staging database', 'The staging database'],
  ['keyword', 'deploy days', 'Deploys go out'],
  ['keyword', 'postgres replication', 'We use Postgres'],
  ['keyword', 'terraform', 'Infrastructure is managed'],
  ['keyword', 'wireguard peer', 'The team VPN'],
  ['keyword', 'kubernetes cluster', 'Production runs'],
  ['keyword', 'grafana dashboards', 'Dashboards for latency'],
  ['keyword', 'billing on-call', 'Bob owns the billing'],
  ['keyword', 'decaf', 'Nobody drinks decaf'],
  ['keyword', 'secrets vault', 'Secrets are stored'],
  ['keyword', 'rate limit', 'The API rate limit'],
  ['keyword', 'feature flags', 'Feature flags'],
  ['keyword', 'playwright', 'Frontend tests'],
  ['question', 'what package manager does alice use?', 'Alice prefers pnpm'],
  ['question', 'when do deploys go out?', 'Deploys go out'],
  ['question', 'who owns billing?', 'Bob owns the billing'],
  ['question', 'where do the dashboards live?', 'Dashboards for latency'],
  ['question', 'how many approvals does a code review need?', 'Code review needs'],
  ['question', 'when is the schema migration planned?', 'The database migration'],
  ['question', 'where are secrets kept?', 'Secrets are stored'],
  ['question', 'which language is the android app written in?', 'The mobile app'],
  ['question', 'how long are logs kept?', 'Logs are kept'],
  ['question', 'who is the product manager for onboarding?', 'Priya is the product'],
  ['question', 'when do backups run?', 'Backups of the main'],
  ['question', 'is Omar on leave?', 'Omar is on parental'],
  ['question', 'where are the domains registered?', 'Our domain names'],
  ['question', 'when are invoices sent?', 'Invoices are sent'],
  ['question', 'what collects crash reports?', 'Sentry collects'],
  ['typo', 'pnmp', 'Alice prefers pnpm'],
  ['typo', 'terrafrom', 'Infrastructure is managed'],
  ['typo', 'postgress', 'We use Postgres'],
  ['typo', 'deplyos', 'Deploys go out'],
  ['typo', 'migraton', 'The database migration'],
  ['typo', 'coffe machine', 'The coffee machine'],
  ['typo', 'wiregaurd', 'The team VPN'],
  ['typo', 'kubernetse', 'Production runs'],
  ['typo', 'grafna', 'Dashboards for latency'],
  ['typo', 'zendsk tickets', 'Customer support tickets'],
  ['typo', 'playwrigth', 'Frontend tests'],
  ['typo', 'launchdarkley', 'Feature flags'],
  ['typo', 'storybok', 'Our design system'],
  ['prefix', 'kube', 'Production runs'],
  ['prefix', 'graf', 'Dashboards for latency'],
  ['prefix', 'terra', 'Infrastructure is managed'],
  ['prefix', 'wire', 'The team VPN'],
  ['prefix', 'zend', 'Customer support tickets'],
  ['prefix', 'sent', 'Sentry collects'],
  ['prefix', 'kot', 'The mobile app'],
  ['prefix', 'noodl', 'Lunch on Wednesdays'],
  ['prefix', 'gan', 'Our domain names'],
  // Questions holding a weak verb ("use", "go", "get") beside the words they are about.
  ['weak', 'which editor does Carol use', 'Carol uses Neovim'],
  ['weak', 'when do deploys go to production', 'Deploys go out'],
  ['weak', 'where do support tickets go', 'Customer support tickets'],
  ['weak', 'what did Dana get', 'Dana got a new laptop'],
  ['weak', 'which package manager does Bob use for billing', 'Bob still uses yarn'],
  ['weak', 'where do the handover notes go', 'The handover notes'],
]

/**
 * Words that say little about what a fact is about: the weak verbs, and any word in more than a
 * fifth of the facts. Worked out here from the words themselves, not from what the index does.
 */
const WEAK = new Set(['use', 'uses', 'used', 'using', 'go', 'goes', 'going', 'gone', 'went', 'get', 'gets', 'got'])
function informativeWords(query: string): string {
  const termsOfFacts = FACTS.map((f) => new Set(analyze(f)))
  return tokenize(query)
    .filter((word) => {
      const term = toTerm(word)
      if (term === null || WEAK.has(word)) return false
      return termsOfFacts.filter((terms) => terms.has(term)).length <= FACTS.length / 5
    })
    .join(' ')
}

describe('precision and typos on standalone facts (MCP, one memory_add each)', function () {
  let session: McpSession
  let cleanup: () => void

  before(async () => {
    const temp = tempHome()
    cleanup = temp.cleanup
    session = await connectMcp(temp.home)
    for (const content of FACTS) {
      const r = await session.call('memory_add', {content})
      assert.notEqual(r.isError, true)
    }
  })
  after(async () => {
    await session.close()
    cleanup()
  })

  const results = new Map<string, {content: string; context_for?: string}[]>()
  const found = async (query: string) => {
    if (!results.has(query)) {
      const r = await session.call('memory_search', {query, limit: 10})
      assert.notEqual(r.isError, true)
      results.set(query, (r.structuredContent as {facts: {content: string; context_for?: string}[]}).facts)
    }
    return results.get(query)!
  }

  it('returns no fact that shares no word with the query (and none as context: there are no threads)', async () => {
    const strays: string[] = []
    let returned = 0
    for (const [, query] of QUERIES) {
      for (const hit of await found(query)) {
        returned++
        assert.equal(hit.context_for, undefined)
        if (!sharesAWord(query, hit.content)) strays.push(`${query} -> ${hit.content}`)
      }
    }
    assert.ok(returned >= QUERIES.length)
    assert.deepEqual(strays, [])
  })

  it('returns no fact that shares only weak or common words with the query while others share its informative ones', async () => {
    const weakOnly: string[] = []
    let checked = 0
    for (const [, query] of QUERIES) {
      const informative = informativeWords(query)
      const hits = await found(query)
      if (informative === '' || !hits.some((h) => sharesAWord(informative, h.content))) continue
      checked++
      for (const hit of hits) if (!sharesAWord(informative, hit.content)) weakOnly.push(`${query} -> ${hit.content}`)
    }
    assert.ok(checked >= QUERIES.length / 2)
    assert.deepEqual(weakOnly, [])
  })

  it('a query made only of a weak verb is still a search: "go" finds the facts that say it', async () => {
    const hits = await found('go')
    assert.deepEqual(hits.map((h) => h.content.split(' ').slice(0, 2).join(' ')).sort(), [
      'Customer support',
      'Deploys go',
      'Grafana alerts',
      'The handover',
    ])
  })

  for (const [kinds, least] of [
    [['keyword', 'question', 'weak'], 0.95],
    [['typo', 'prefix'], 0.9],
  ] as const) {
    it(`${kinds.join(' and ')} queries find their fact in the top 5 at least ${least * 100}% of the time`, async () => {
      const asked = QUERIES.filter(([kind]) => (kinds as readonly Kind[]).includes(kind))
      const missed: string[] = []
      for (const [, query, wanted] of asked) {
        const top = (await found(query)).slice(0, 5)
        if (!top.some((h) => h.content.startsWith(wanted))) missed.push(query)
      }
      assert.ok(
        1 - missed.length / asked.length >= least,
        `missed ${missed.length} of ${asked.length}: ${missed.join(', ')}`,
      )
    })
  }

  it('ranks the fact that holds the exact word above those that hold it only loosely', async () => {
    const hits = await found('sent')
    assert.deepEqual(
      hits.map((h) => h.content.split(' ')[0]),
      ['Invoices', 'Sentry'],
    )
  })
})
