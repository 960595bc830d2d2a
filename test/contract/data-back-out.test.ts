import assert from 'node:assert/strict'

import {serveDuringSuite} from '../helpers/mcp.js'
import {mem, memAsync} from '../helpers/mem.js'
import {validateAgainst} from '../helpers/schema.js'

const MESSAGES = [
  {role: 'user', content: 'Move the billing tables to the new cluster'},
  {role: 'assistant', content: 'Copying the schema first'},
  {role: 'user', content: 'Keep the old one read-only'},
]

describe('what is put in comes back out (MCP and CLI over one store)', () => {
  const suite = serveDuringSuite(['--agent', 'alice'])

  async function payload(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    const r = await suite.mcp.call(name, args)
    assert.notEqual(r.isError, true, JSON.stringify(r.content))
    const schema = suite.mcp.tools.find((t) => t.name === name)!.outputSchema!
    assert.equal(validateAgainst(schema, r.structuredContent), undefined)
    return r.structuredContent as Record<string, unknown>
  }

  describe('checkpoint messages', () => {
    before(async () => {
      await payload('checkpoint_save', {state: {step: 2}, messages: MESSAGES, label: 'migration'})
    })

    it('checkpoint_resume returns them with include_messages, the last N with last_messages, and none by default', async () => {
      const plain = await payload('checkpoint_resume', {})
      assert.equal(plain.found, true)
      assert.equal(plain.message_count, 3)
      assert.equal('messages' in plain, false)
      assert.deepEqual((await payload('checkpoint_resume', {include_messages: true})).messages, MESSAGES)
      const last = await payload('checkpoint_resume', {last_messages: 2})
      assert.deepEqual(last.messages, MESSAGES.slice(-2))
      assert.equal(last.message_count, 3)
    })

    it('the text content lists them too, oldest first', async () => {
      const r = await suite.mcp.call('checkpoint_resume', {last_messages: 1})
      assert.match(
        (r.content[0] as {text: string}).text,
        /\nLast 1 of 3 messages, oldest first:\n\{"role":"user","content":"Keep the old one read-only"\}$/,
      )
    })

    it('mem resume --messages and --last-messages print them; --json is the same payload', () => {
      const prose = mem(suite.home, ['resume', '--agent', 'alice', '--messages'])
      assert.equal(prose.code, 0, prose.stderr)
      assert.ok(
        prose.stdout.endsWith(`Messages, oldest first:\n${MESSAGES.map((m) => JSON.stringify(m)).join('\n')}\n`),
        prose.stdout,
      )
      for (const path of [undefined, '1']) {
        const json = mem(suite.home, ['resume', '--agent', 'alice', '--last-messages', '2', '--json'], {
          env: {MEM_NO_FAST_PATH: path},
        })
        assert.equal(json.code, 0, json.stderr)
        assert.deepEqual((JSON.parse(json.stdout) as {messages: unknown[]}).messages, MESSAGES.slice(-2))
      }
      assert.equal(mem(suite.home, ['resume', '--agent', 'alice', '--last-messages', '0']).code, 2)
    })
  })

  describe('duplicates', () => {
    it('memory_add of what a live fact already says stores nothing and names that fact', async () => {
      const first = await payload('memory_add', {content: 'Prefers pnpm as package manager', tags: ['tooling']})
      assert.equal(first.duplicate, false)
      const again = await payload('memory_add', {content: '  prefers PNPM   as package\nmanager '})
      assert.deepEqual(again, {agent_id: 'alice', stored: true, fact_id: first.fact_id, duplicate: true})
      assert.match(
        mem(suite.home, ['add', 'Prefers pnpm as package manager', '--agent', 'alice']).stdout,
        /already says this; nothing new was stored/,
      )
      const live = JSON.parse(mem(suite.home, ['list', '--agent', 'alice', '--json']).stdout) as {
        facts: {content: string}[]
      }
      assert.equal(live.facts.filter((f) => /pnpm/i.test(f.content)).length, 1)
    })

    it('allow_duplicate (--allow-duplicate) stores a second copy on purpose; another agent is not a duplicate', async () => {
      const first = await payload('memory_add', {content: 'Standup is at ten'})
      const second = await payload('memory_add', {content: 'Standup is at ten', allow_duplicate: true})
      assert.notEqual(second.fact_id, first.fact_id)
      assert.equal(second.duplicate, false)
      const cli = JSON.parse(
        mem(suite.home, ['add', 'Standup is at ten', '--agent', 'alice', '--allow-duplicate', '--json']).stdout,
      ) as {fact_id: string; duplicate: boolean}
      assert.equal(cli.duplicate, false)
      assert.ok(![first.fact_id, second.fact_id].includes(cli.fact_id))
      assert.equal((await payload('memory_add', {content: 'Standup is at ten', agent_id: 'bob'})).duplicate, false)
    })

    it('a fact that was replaced or deleted does not count: the same words can be added again', async () => {
      const fact = await payload('memory_add', {content: 'Deploys happen on Fridays'})
      await payload('memory_reflect', {action: 'delete', fact_id: fact.fact_id})
      const again = await payload('memory_add', {content: 'Deploys happen on Fridays'})
      assert.equal(again.duplicate, false)
      assert.notEqual(again.fact_id, fact.fact_id)
      const reflected = await payload('memory_reflect', {action: 'add', content: 'deploys happen on fridays'})
      assert.equal(reflected.fact_id, again.fact_id)
      assert.equal(reflected.duplicate, true)
    })

    it('a warm server follows other writers and updates: what the CLI stored is a duplicate, a replaced text is not', async () => {
      await payload('memory_add', {content: 'Warm up the guard'})
      const cli = JSON.parse(
        mem(suite.home, ['add', 'The build cache lives on the NAS', '--agent', 'alice', '--json']).stdout,
      ) as {fact_id: string}
      const seen = await payload('memory_add', {content: 'the build cache lives on the nas'})
      assert.deepEqual([seen.fact_id, seen.duplicate], [cli.fact_id, true])
      const updated = await payload('memory_reflect', {
        action: 'update',
        fact_id: cli.fact_id,
        content: 'The build cache lives in S3',
      })
      const old = await payload('memory_add', {content: 'The build cache lives on the NAS'})
      assert.equal(old.duplicate, false)
      const now = await payload('memory_add', {content: 'the build cache lives in s3'})
      assert.deepEqual([now.fact_id, now.duplicate], [updated.fact_id, true])
    })

    it('turns of a thread are a conversation, never duplicates, and a standalone fact is not one of a turn', async () => {
      const one = await payload('memory_add', {content: 'Sounds good', thread: 'chat-1'})
      const two = await payload('memory_add', {content: 'sounds good', thread: 'chat-1'})
      assert.equal(two.duplicate, false)
      assert.notEqual(two.fact_id, one.fact_id)
      assert.equal((await payload('memory_add', {content: 'Sounds good'})).duplicate, false)
    })

    it('holds across processes: many mem add of the same text at once store it once', async () => {
      const variants = [
        'The VPN needs a token',
        'the vpn needs a token',
        'The  VPN needs a token ',
        'THE VPN NEEDS A TOKEN',
      ]
      const runs = await Promise.all(
        Array.from({length: 12}, (_, i) =>
          memAsync(suite.home, ['add', variants[i % variants.length]!, '--agent', 'race', '--json']),
        ),
      )
      for (const r of runs) assert.equal(r.code, 0, r.stderr)
      const answers = runs.map((r) => JSON.parse(r.stdout) as {fact_id: string; duplicate: boolean})
      assert.equal(new Set(answers.map((a) => a.fact_id)).size, 1, JSON.stringify(answers))
      assert.equal(answers.filter((a) => !a.duplicate).length, 1)
      const listed = JSON.parse(mem(suite.home, ['list', '--agent', 'race', '--all', '--json']).stdout) as {
        total: number
      }
      assert.equal(listed.total, 1)
    })
  })
})
