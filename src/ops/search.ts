import * as v from 'valibot'

import {plural} from '../plural.js'
import {explainMatches, type MatchedWord as Matched} from '../search/explain.js'
import {AgentId, Tags, Timestamp} from './fields.js'
import {LIMITS} from './limits.js'
import {defineOperation, resolveAgent} from './operation.js'
import {checkRangeOrder, Since, Until} from './time-range.js'

export const MatchedWord = v.object({
  word: v.pipe(v.string(), v.description('A word of the query, lower case, as the search read it.')),
  how: v.pipe(
    v.picklist(['exact', 'stem', 'prefix', 'typo']),
    v.description(
      "exact: the fact holds the word itself; stem: another word of its stem (deploys, deployed); prefix: a word it starts (kube, kubernetes); typo: a word a typo away, or one of that word's stem.",
    ),
  ),
  fact_word: v.pipe(v.string(), v.description("The fact's word it matched, lower case.")),
})

export const FactHit = v.object({
  id: v.string(),
  content: v.string(),
  tags: v.array(v.string()),
  created_at: Timestamp,
  score: v.pipe(v.number(), v.description('BM25 relevance: higher is better; compare only within one result list')),
  thread: v.optional(
    v.pipe(v.string(), v.description('The conversation the fact is a turn of; absent for standalone facts.')),
  ),
  context_for: v.optional(
    v.pipe(
      v.string(),
      v.description(
        "Present when the fact matched none of the query's words: it is a turn of the same thread as the matching fact with this id, returned as that fact's context.",
      ),
    ),
  ),
  matched: v.optional(
    v.pipe(
      v.array(MatchedWord),
      v.description(
        'With explain: the query words this fact matched and how, in query order; empty for a fact returned as context (see context_for).',
      ),
    ),
  ),
  by_meaning: v.optional(
    v.pipe(
      v.literal(true),
      v.description(
        'Present when the fact shares no word with the query: meaning alone found it (only with meaning on, see meaning).',
      ),
    ),
  ),
})

export const MeaningReport = v.pipe(
  v.object({
    used: v.pipe(
      v.boolean(),
      v.description('Whether meaning took part in this search; when not, words alone ranked it.'),
    ),
    pending: v.pipe(
      v.number(),
      v.description("How many of the agent's live facts still wait for their vectors: meaning cannot find them yet."),
    ),
    why: v.optional(v.pipe(v.string(), v.description('Why meaning took no part, when it did not.'))),
  }),
  v.description(
    'Present only when meaning is on for this memory ("mem meaning on"): search ranks by meaning as well as words.',
  ),
)

export const memorySearch = defineOperation({
  tool: 'memory_search',
  title: 'Search memory',
  description:
    'Find stored facts that share a word with a question or keywords (by stem, a word it starts, or a typo), ranked by BM25 relevance with exact words first; a fact saved with a thread also brings the turns around it in that thread, marked context_for. ' +
    'Use it before answering anything that may depend on what you learned earlier: user preferences, project decisions, names, past events. ' +
    'Returns only live facts (not replaced or deleted); each has an id to pass to memory_reflect.',
  annotations: {readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false},
  input: v.strictObject({
    agent_id: v.optional(AgentId),
    query: v.pipe(
      v.string(),
      v.regex(/\S/, 'must not be empty'),
      v.maxLength(LIMITS.queryLength, `must be at most ${LIMITS.queryLength} characters`),
      v.description('What to look for, in natural words or keywords.'),
    ),
    limit: v.optional(
      v.pipe(
        v.number(),
        v.integer('must be a whole number'),
        v.minValue(1, 'must be between 1 and 100'),
        v.maxValue(100, 'must be between 1 and 100'),
        v.description('How many facts to return at most (1-100).'),
      ),
      10,
    ),
    tags: v.optional(v.pipe(Tags, v.description('Only return facts that carry every one of these tags.'))),
    since: v.optional(Since),
    until: v.optional(Until),
    as_you_type: v.optional(
      v.pipe(
        v.boolean(),
        v.description(
          'The query is still being typed (search as you type): its last word, unless a space follows it, also matches the words it starts from its first letter.',
        ),
      ),
    ),
    explain: v.optional(
      v.pipe(
        v.boolean(),
        v.description(
          'Say of each fact which query words it matched and how (exact, stem, prefix or typo), as matched.',
        ),
      ),
    ),
  }),
  output: v.object({
    agent_id: v.string(),
    query: v.string(),
    count: v.number(),
    facts: v.array(FactHit),
    meaning: v.optional(MeaningReport),
  }),
  async handler(ctx, input) {
    checkRangeOrder(input)
    const agent_id = resolveAgent(ctx, input.agent_id)
    const {hits, meaning} = await ctx.store.searchFacts(agent_id, {
      text: input.query,
      limit: input.limit,
      tags: input.tags,
      since: input.since,
      until: input.until,
      partial: input.as_you_type,
      explain: input.explain,
    })
    const facts = hits.map(({fact, score, contextFor, matched, byMeaning}) => ({
      id: fact.id,
      content: fact.content,
      tags: fact.tags,
      created_at: fact.created_at,
      score,
      ...(fact.thread === undefined ? {} : {thread: fact.thread}),
      ...(contextFor === undefined ? {} : {context_for: contextFor}),
      ...(matched === undefined ? {} : {matched: explainMatches(matched, fact.content, fact.tags, input.query)}),
      ...(byMeaning === undefined ? {} : {by_meaning: byMeaning}),
    }))
    return {agent_id, query: input.query, count: facts.length, facts, ...(meaning === undefined ? {} : {meaning})}
  },
  prose(payload) {
    const note = meaningNote(payload.meaning)
    if (payload.count === 0)
      return `No facts found for "${payload.query}" (agent ${payload.agent_id}).${note === undefined ? '' : `\n${note}`}`
    const lines = payload.facts.map(
      (f, i) =>
        `${i + 1}. ${f.content}${f.tags.length > 0 ? ` [${f.tags.join(', ')}]` : ''} (id ${f.id}${f.context_for === undefined ? '' : `; context for ${f.context_for}`}${f.by_meaning === true ? '; by meaning' : ''})` +
        (f.matched === undefined ? '' : `\n   ${matchedText(f.matched, f.context_for, f.by_meaning)}`),
    )
    return [
      `Found ${plural(payload.count, 'fact')} for "${payload.query}" (agent ${payload.agent_id}):`,
      ...lines,
      ...(note === undefined ? [] : [note]),
    ].join('\n')
  },
})

/**
 * What a search with meaning on says of it, on a line of its own after the hits: nothing when
 * meaning took part and no fact waits for its vector.
 */
export function meaningNote(meaning: v.InferOutput<typeof MeaningReport> | undefined): string | undefined {
  if (meaning === undefined) return undefined
  const waiting =
    meaning.pending === 0
      ? undefined
      : `${plural(meaning.pending, 'fact')} still without vectors (mem embed makes them)`
  if (meaning.used) return waiting === undefined ? undefined : `Meaning: ${waiting}.`
  return `Meaning took no part, words alone ranked this: ${meaning.why ?? 'no vectors'}${waiting === undefined ? '' : `; ${waiting}`}.`
}

/** Why a hit came back, on a line of its own under it (only with explain). */
export function matchedText(
  matched: readonly Matched[],
  contextFor: string | undefined,
  byMeaning: boolean | undefined,
): string {
  if (matched.length === 0 && byMeaning === true) return 'matched no word: found by meaning'
  if (matched.length === 0)
    return contextFor === undefined ? 'matched no word' : `matched no word: context for ${contextFor}`
  return `matched ${matched.map((m) => (m.how === 'exact' ? `${m.word} (exact)` : `${m.word} (${m.how}: ${m.fact_word})`)).join(', ')}`
}
