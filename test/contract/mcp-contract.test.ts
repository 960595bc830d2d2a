import assert from 'node:assert/strict'

import {ERAS, serveDuringSuite, TRANSPORTS} from '../helpers/mcp.js'
import {STORES, useStore} from '../helpers/stores.js'
import {validateAgainst} from '../helpers/schema.js'

for (const store of STORES)
  for (const transport of TRANSPORTS)
    for (const era of ERAS)
      describe(`MCP contract (mem mcp serve over ${transport}, official SDK client, MCP ${era}, ${store.name})`, () => {
        useStore(store)
        const suite = serveDuringSuite(['--agent', 'alice'], transport, era)

        function schemaOf(name: string, which: 'inputSchema' | 'outputSchema'): object {
          const tool = suite.mcp.tools.find((t) => t.name === name)
          assert.ok(tool, `tools/list has no ${name}`)
          assert.ok(tool[which], `${name} advertises no ${which}`)
          return tool[which] as object
        }

        async function success(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
          const result = await suite.mcp.call(name, args)
          assert.notEqual(result.isError, true, `${name} failed: ${JSON.stringify(result.content)}`)
          const payload = result.structuredContent as Record<string, unknown>
          assert.ok(payload, `${name} returned no structuredContent`)
          assert.equal(validateAgainst(schemaOf(name, 'outputSchema'), payload), undefined)
          const text = result.content.find((c) => c.type === 'text')
          assert.ok(text && text.type === 'text' && text.text.length > 0, `${name} returned no text content`)
          return payload
        }

        async function failure(name: string, args: Record<string, unknown>): Promise<string> {
          const result = await suite.mcp.call(name, args)
          assert.equal(result.isError, true, `${name} should have failed`)
          assert.equal(result.structuredContent, undefined, 'an error result must not carry structuredContent')
          assert.equal(result.content.length, 1)
          const [text] = result.content
          assert.equal(text?.type, 'text')
          return (text as {text: string}).text
        }

        it('lists the five tools with titles, descriptions, schemas and annotations', () => {
          assert.deepEqual(
            suite.mcp.tools.map((t) => t.name),
            ['memory_search', 'memory_add', 'checkpoint_save', 'checkpoint_resume', 'memory_reflect'],
          )
          for (const tool of suite.mcp.tools) {
            assert.ok(tool.title && tool.title.length > 3, `${tool.name} title`)
            assert.ok(tool.description && tool.description.length > 80, `${tool.name} description says what and when`)
            assert.equal(tool.inputSchema.type, 'object')
            assert.equal(tool.outputSchema?.type, 'object')
            assert.equal(tool.annotations?.openWorldHint, false)
          }
          const hints = Object.fromEntries(suite.mcp.tools.map((t) => [t.name, t.annotations]))
          assert.equal(hints.memory_search?.readOnlyHint, true)
          assert.equal(hints.checkpoint_resume?.readOnlyHint, true)
          assert.equal(hints.memory_reflect?.destructiveHint, true)
          assert.equal(hints.memory_add?.readOnlyHint, false)
          assert.equal(hints.memory_search?.idempotentHint, true)
        })

        it('memory_add and memory_search payloads validate against the advertised outputSchema', async () => {
          const added = await success('memory_add', {content: 'Prefers pnpm as package manager', tags: ['tooling']})
          assert.equal(added.agent_id, 'alice')
          assert.equal(added.stored, true)
          assert.match(String(added.fact_id), /^[0-9A-HJKMNP-TV-Z]{26}$/)

          const found = await success('memory_search', {query: 'package manager'})
          assert.equal(found.count, 1)
          const facts = found.facts as Record<string, unknown>[]
          assert.equal(facts[0]?.id, added.fact_id)
          assert.deepEqual(Object.keys(facts[0]!).sort(), ['content', 'created_at', 'id', 'score', 'tags'])
          assert.equal(typeof facts[0]?.score, 'number')
          assert.match(String(facts[0]?.created_at), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
        })

        it('an empty search is a success with count 0 and facts []', async () => {
          const empty = await success('memory_search', {query: 'zebra migration patterns'})
          assert.deepEqual(empty, {agent_id: 'alice', query: 'zebra migration patterns', count: 0, facts: []})
        })

        it('checkpoint_save then checkpoint_resume round-trips the state', async () => {
          const saved = await success('checkpoint_save', {
            state: {step: 3, todo: ['x']},
            messages: [{role: 'user', content: 'hi'}],
            label: 'mid-task',
          })
          const resumed = await success('checkpoint_resume', {})
          assert.equal(resumed.id, saved.checkpoint_id)
          assert.equal(resumed.created_at, saved.created_at)
          assert.deepEqual(resumed.state, {step: 3, todo: ['x']})
          assert.equal(resumed.message_count, 1)
          const byId = await success('checkpoint_resume', {checkpoint_id: saved.checkpoint_id})
          assert.deepEqual(byId, resumed)
        })

        it('resume without a checkpoint is a text-only tool error by default', async () => {
          const text = await failure('checkpoint_resume', {agent_id: 'nobody'})
          assert.equal(text, 'No checkpoint found for agent "nobody".')
        })

        it('on_missing "empty" returns the absence branch of the declared union', async () => {
          const absent = await success('checkpoint_resume', {agent_id: 'nobody', on_missing: 'empty'})
          assert.deepEqual(absent, {agent_id: 'nobody', found: false})
        })

        it('memory_reflect update, merge and delete validate and take facts out of search', async () => {
          const a = await success('memory_add', {agent_id: 'bob', content: 'Uses npm for scripts', tags: ['tooling']})
          const b = await success('memory_add', {agent_id: 'bob', content: 'Uses yarn for the monorepo'})
          const updated = await success('memory_reflect', {
            agent_id: 'bob',
            action: 'update',
            fact_id: a.fact_id,
            content: 'Uses bun for scripts',
          })
          assert.deepEqual(Object.keys(updated).sort(), ['action', 'agent', 'agent_id', 'fact_id', 'ok', 'supersedes'])
          assert.equal(updated.agent, 'bob')
          assert.deepEqual(updated.supersedes, [a.fact_id])

          const merged = await success('memory_reflect', {
            agent_id: 'bob',
            action: 'merge',
            fact_ids: [updated.fact_id, b.fact_id],
            content: 'Uses bun everywhere',
          })
          assert.deepEqual(merged.supersedes, [updated.fact_id, b.fact_id])
          const search = await success('memory_search', {agent_id: 'bob', query: 'uses'})
          assert.deepEqual(
            (search.facts as {id: string; tags: string[]}[]).map((f) => [f.id, f.tags]),
            [[merged.fact_id, ['tooling']]],
          )

          const deleted = await success('memory_reflect', {
            agent_id: 'bob',
            action: 'delete',
            fact_id: merged.fact_id,
            reason: 'wrong',
          })
          assert.equal(deleted.fact_id, merged.fact_id)
          assert.equal((await success('memory_search', {agent_id: 'bob', query: 'bun'})).count, 0)

          const added = await success('memory_reflect', {agent_id: 'bob', action: 'add', content: 'Likes tea'})
          assert.equal(added.action, 'add')
        })

        it('an update that changes nothing stores no version; one that changes only case does', async () => {
          const fact = await success('memory_add', {agent_id: 'cleo', content: 'Standup at ten', tags: ['team']})
          const same = {agent_id: 'cleo', action: 'update', fact_id: fact.fact_id, content: 'Standup at ten'}
          const noop = await success('memory_reflect', same)
          assert.deepEqual(
            {fact_id: noop.fact_id, duplicate: noop.duplicate, supersedes: noop.supersedes},
            {fact_id: fact.fact_id, duplicate: true, supersedes: undefined},
          )
          const found = await suite.mcp.call('memory_search', {agent_id: 'cleo', query: 'standup'})
          assert.deepEqual(
            (found.structuredContent as {facts: {id: string}[]}).facts.map((f) => f.id),
            [fact.fact_id],
          )
          const recased = await success('memory_reflect', {...same, content: 'standup at ten'})
          assert.deepEqual(recased.supersedes, [fact.fact_id])
          assert.equal(recased.duplicate, undefined)
          const retagged = await success('memory_reflect', {
            ...same,
            fact_id: recased.fact_id,
            content: 'standup at ten',
            tags: [],
          })
          assert.deepEqual(retagged.supersedes, [recased.fact_id])
        })

        it('a merge of one fact given twice is refused, naming update', async () => {
          const fact = await success('memory_add', {agent_id: 'cleo', content: 'Retro on Fridays'})
          assert.equal(
            await failure('memory_reflect', {
              agent_id: 'cleo',
              action: 'merge',
              fact_ids: [fact.fact_id, fact.fact_id],
              content: 'x',
            }),
            'invalid input: fact_ids: merge needs at least two different fact ids, and these are all one; to change one fact, use update',
          )
        })

        it('an unknown fact id is a not-found tool error', async () => {
          const text = await failure('memory_reflect', {action: 'delete', fact_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV'})
          assert.equal(text, 'No fact "01ARZ3NDEKTSV4RRFFQ69G5FAV" found for agent "alice".')
        })

        it('input that fails its schema is a tool error naming the field', async () => {
          assert.match(await failure('memory_search', {query: 'x', limit: 0}), /limit: must be between 1 and 100/)
          assert.match(await failure('memory_add', {content: '   '}), /content: must not be empty/)
          assert.match(await failure('checkpoint_save', {state: [1, 2]}), /state: must be a JSON object/)
          assert.match(
            await failure('memory_reflect', {action: 'rename'}),
            /action: must be one of add, update, delete, merge/,
          )
          assert.match(
            await failure('memory_reflect', {action: 'update', content: 'x'}),
            /action "update" needs fact_id/,
          )
          assert.match(await failure('memory_search', {query: 'x', agent_id: '../etc'}), /agent_id: may use letters/)
          assert.match(await failure('memory_add', {content: 'x', colour: 'red'}), /colour/)
          // An empty value breaks every rule of its field, but only "must not be empty" is said of it.
          assert.equal(
            await failure('memory_add', {content: 'x', thread: ''}),
            'invalid input: thread: must not be empty',
          )
          assert.equal(
            await failure('memory_add', {content: 'x', tags: ['']}),
            'invalid input: tags.0: a tag must not be empty',
          )
          assert.equal(
            await failure('memory_search', {query: 'x', since: '2027-01-01', until: '2026-01-01'}),
            'invalid input: until must be after since, or no fact can match (2026-01-01 is not after 2027-01-01)',
          )
        })

        it("says in plain words what was wrong and what is allowed, never in the validator's wording", async () => {
          const extra = await failure('memory_search', {query: 'x', extra: 1})
          assert.match(
            extra,
            /^invalid input: unknown argument "extra"; memory_search takes agent_id, query, limit, tags, since, until\b/,
          )
          assert.equal(await failure('memory_search', {}), 'invalid input: query is required')
          assert.equal(
            await failure('memory_search', {query: 'x', limit: '5'}),
            'invalid input: limit must be a number, not a string',
          )
          assert.equal(
            await failure('memory_add', {content: 42}),
            'invalid input: content must be a string, not a number',
          )
          assert.equal(
            await failure('memory_add', {content: 'x', tags: ['ok', 7]}),
            'invalid input: tags.1 must be a string, not a number',
          )
          for (const text of [extra, await failure('memory_search', {query: 'x', limit: true})])
            assert.doesNotMatch(text, /Invalid (key|type)|Expected|received/)
        })
      })
