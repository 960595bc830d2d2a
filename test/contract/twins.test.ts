import assert from 'node:assert/strict'

import {ERAS, serveDuringSuite, TRANSPORTS} from '../helpers/mcp.js'
import {STORES, useStore} from '../helpers/stores.js'
import {mem} from '../helpers/mem.js'

/**
 * For the same data, `mem … --json` prints exactly the MCP structuredContent and plain
 * `mem …` prints exactly the MCP text. Writes make fresh ids and times, so those are
 * compared as placeholders; reads are compared byte for byte.
 */
for (const store of STORES)
  for (const transport of TRANSPORTS)
    for (const era of ERAS)
      describe(`CLI and MCP are twins (over ${transport}, MCP ${era}, ${store.name})`, () => {
        useStore(store)
        const suite = serveDuringSuite(['--agent', 'alice'], transport, era)

        const ID = /[0-9A-HJKMNP-TV-Z]{26}/g
        const TIME = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g
        const normalize = (s: string) => s.replace(ID, '<id>').replace(TIME, '<time>')

        function cli(args: string[], input?: string): {json: string; text: string} {
          const json = mem(suite.home, [...args, '--json', '--agent', 'alice'], {input})
          const text = mem(suite.home, [...args, '--agent', 'alice'], {input})
          assert.equal(json.code, 0, json.stderr)
          assert.equal(text.code, 0, text.stderr)
          return {json: json.stdout, text: text.stdout}
        }

        async function tool(name: string, args: Record<string, unknown>): Promise<{json: unknown; text: string}> {
          const r = await suite.mcp.call(name, args)
          assert.notEqual(r.isError, true, JSON.stringify(r.content))
          const text = r.content[0]
          assert.equal(text?.type, 'text')
          return {json: r.structuredContent, text: (text as {text: string}).text}
        }

        it('memory_add / mem add', async () => {
          // The same fact four times on purpose (the searches below rank four equal facts).
          const c = cli(['add', 'Prefers pnpm as package manager', '--tag', 'tooling', '--allow-duplicate'])
          const m = await tool('memory_add', {
            content: 'Prefers pnpm as package manager',
            tags: ['tooling'],
            allow_duplicate: true,
          })
          // Two adds ran on each surface (json and plain); compare one of each shape.
          assert.equal(normalize(c.json), normalize(`${JSON.stringify(m.json)}\n`))
          assert.equal(normalize(c.text), normalize(`${m.text}\n`))
        })

        it('memory_search / mem search, byte for byte', async () => {
          const c = cli(['search', 'package manager'])
          const m = await tool('memory_search', {query: 'package manager'})
          assert.equal(c.json, `${JSON.stringify(m.json)}\n`)
          assert.equal(c.text, `${m.text}\n`)
          assert.equal((m.json as {count: number}).count, 3)
        })

        it('memory_search with nothing found', async () => {
          const c = cli(['search', 'quantum chromodynamics'])
          const m = await tool('memory_search', {query: 'quantum chromodynamics'})
          assert.equal(c.json, `${JSON.stringify(m.json)}\n`)
          assert.equal(c.text, `${m.text}\n`)
        })

        it('checkpoint_save / mem save', async () => {
          const c = cli(['save', '--label', 'x'], '{"step":3,"todo":["x"]}')
          const m = await tool('checkpoint_save', {state: {step: 3, todo: ['x']}, label: 'x'})
          assert.equal(normalize(c.json), normalize(`${JSON.stringify(m.json)}\n`))
          assert.equal(normalize(c.text), normalize(`${m.text}\n`))
        })

        it('checkpoint_resume / mem resume, byte for byte, and the absence branch', async () => {
          const c = cli(['resume'])
          const m = await tool('checkpoint_resume', {})
          assert.equal(c.json, `${JSON.stringify(m.json)}\n`)
          assert.equal(c.text, `${m.text}\n`)

          const absentCli = mem(suite.home, ['resume', '--agent', 'nobody', '--on-missing', 'empty', '--json'])
          const absentMcp = await tool('checkpoint_resume', {agent_id: 'nobody', on_missing: 'empty'})
          assert.equal(absentCli.stdout, `${JSON.stringify(absentMcp.json)}\n`)
          const absentText = mem(suite.home, ['resume', '--agent', 'nobody', '--on-missing', 'empty'])
          assert.equal(absentText.stdout, `${absentMcp.text}\n`)
        })

        it('memory_reflect / mem reflect', async () => {
          await tool('memory_add', {content: 'Prefers pnpm for monorepos'})
          const ids = (JSON.parse(cli(['search', 'pnpm']).json) as {facts: {id: string}[]}).facts.map((f) => f.id)
          assert.ok(ids.length >= 4)
          const c = {
            json: mem(suite.home, [
              'reflect',
              'update',
              '--fact',
              ids[0]!,
              '--content',
              'Prefers bun',
              '--json',
              '--agent',
              'alice',
            ]).stdout,
            text: mem(suite.home, [
              'reflect',
              'update',
              '--fact',
              ids[1]!,
              '--content',
              'Prefers bun',
              '--agent',
              'alice',
            ]).stdout,
          }
          const mJson = await tool('memory_reflect', {action: 'update', fact_id: ids[2], content: 'Prefers bun'})
          const mText = await tool('memory_reflect', {action: 'update', fact_id: ids[3], content: 'Prefers bun'})
          assert.equal(normalize(c.json), normalize(`${JSON.stringify(mJson.json)}\n`))
          assert.equal(normalize(c.text), normalize(`${mText.text}\n`))
        })

        it("an id of another agent: the not-found error names that agent, in each surface's words", async () => {
          // MCP calls first: a CLI run that blocks this process may outlast the HTTP server's keep-alive.
          const fact = (await tool('memory_add', {agent_id: 'bob', content: 'kept by bob'})).json as {fact_id: string}
          const cp = (await tool('checkpoint_save', {agent_id: 'bob', state: {}})).json as {checkpoint_id: string}
          const r = await suite.mcp.call('checkpoint_resume', {checkpoint_id: cp.checkpoint_id})
          assert.equal(r.isError, true)
          const text = (r.content[0] as {text: string}).text
          assert.equal(
            text,
            `No checkpoint "${cp.checkpoint_id}" found for agent "alice": it belongs to agent "bob"; add agent_id "bob".`,
          )
          // An id no agent holds keeps the not-found text as it always was.
          const nowhere = '01JDQ3N7X2C9V5K8M4T6R0B1AZ'
          const none = await suite.mcp.call('checkpoint_resume', {checkpoint_id: nowhere})
          assert.equal((none.content[0] as {text: string}).text, `No checkpoint "${nowhere}" found for agent "alice".`)

          const resume = mem(suite.home, ['resume', '--id', cp.checkpoint_id, '--agent', 'alice', '--json'])
          assert.equal(resume.code, 3)
          assert.equal(resume.stderr.split('\n').at(-2), `Error: ${text.replace('add agent_id', 'add --agent')}`)
          assert.equal((JSON.parse(resume.stdout) as {error: {code: string}}).error.code, 'no_checkpoint')
          // No --agent: the default agent's not-found, pointing at bob.
          const history = mem(suite.home, ['history', fact.fact_id])
          assert.equal(history.code, 3)
          assert.equal(
            history.stderr,
            `Error: No fact "${fact.fact_id}" found for agent "default": it belongs to agent "bob"; add --agent "bob".\n`,
          )
          assert.equal(
            mem(suite.home, ['history', nowhere]).stderr,
            `Error: No fact "${nowhere}" found for agent "default".\n`,
          )
        })

        it('errors: the same message on stderr and in the tool error', async () => {
          const c = mem(suite.home, ['resume', '--agent', 'nobody', '--json'])
          const r = await suite.mcp.call('checkpoint_resume', {agent_id: 'nobody'})
          const text = (r.content[0] as {text: string}).text
          assert.equal(c.code, 3)
          assert.equal(c.stderr.split('\n').at(-2), `Error: ${text}`)
          assert.match(c.stderr, /^mem: no agent nobody; known agents: /)
          assert.deepEqual(JSON.parse(c.stdout), {error: {code: 'no_checkpoint', message: text}})
        })
      })
