import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {canonicalJson, canonicalOfText, resumeProseParts} from '../helpers/canonical-json.js'
import {connectMcp} from '../helpers/mcp.js'
import {mem, tempHome} from '../helpers/mem.js'
import {freshDatabase} from '../helpers/postgres.js'

/** The state the loss was reported with: top-level keys that a plain JavaScript object treats specially. */
const STATE = '{"constructor":"ClassA","prototype":"p","__proto__":{"x":1},"step":3}'
const MESSAGES = '[{"__proto__":{"role":"user"},"constructor":"c","prototype":[1],"":"an empty key"},"hi"]'

type Env = Record<string, string | undefined>

/**
 * Keys named `constructor`, `prototype` or `__proto__` in a checkpoint's state and messages are
 * the user's data like any other: every path that reads or copies a checkpoint keeps them. The
 * same paths with arbitrary JSON: state-keys.property.test.ts.
 */
for (const store of ['files', 'PostgreSQL'] as const) {
  describe(`checkpoint state keeps keys named like Object's own (${store})`, function () {
    this.timeout(180_000)
    let temp: ReturnType<typeof tempHome>
    let env: Env

    beforeEach(async () => {
      temp = tempHome()
      env = {MEM_STORE: store === 'files' ? undefined : await freshDatabase()}
    })
    afterEach(() => temp.cleanup())

    function run(args: string[], options: {env?: Env; input?: string; home?: string} = {}): string {
      const r = mem(options.home ?? temp.home, args, {env: options.env ?? env, input: options.input})
      assert.equal(r.code, 0, `mem ${args.join(' ')}: ${r.stderr}`)
      return r.stdout
    }

    function stateOf(stdout: string): string {
      return canonicalJson((JSON.parse(stdout) as {state: unknown}).state)
    }

    it('piped to mem save, they come back from mem resume (--json and prose, both paths) and a new MCP server', async () => {
      run(['save', '--agent', 'a'], {input: `${STATE}\n`})
      for (const fast of [undefined, '1']) {
        const slow = {...env, MEM_NO_FAST_PATH: fast}
        assert.equal(stateOf(run(['resume', '--agent', 'a', '--json'], {env: slow})), canonicalOfText(STATE))
        const prose = run(['resume', '--agent', 'a'], {env: slow})
        assert.equal(canonicalJson(resumeProseParts(prose).state), canonicalOfText(STATE), prose)
      }
      assert.match(run(['checkpoints', '--agent', 'a']), /; state: constructor, prototype, __proto__, step\n/)
      // A server started after the save reads the checkpoint from the store, not from its own write.
      const mcp = await connectMcp(temp.home, {env})
      try {
        const r = await mcp.call('checkpoint_resume', {agent_id: 'a'})
        assert.notEqual(r.isError, true, JSON.stringify(r.content))
        assert.equal(canonicalJson((r.structuredContent as {state: unknown}).state), canonicalOfText(STATE))
        const text = (r.content[0] as {text: string}).text
        assert.equal(canonicalJson(resumeProseParts(text).state), canonicalOfText(STATE), text)
      } finally {
        await mcp.close()
      }
    })

    it('an agent that resumes and saves again keeps them, messages too (MCP, then the CLI)', async () => {
      const first = await connectMcp(temp.home, {env})
      try {
        const saved = await first.call('checkpoint_save', {
          agent_id: 'a',
          state: JSON.parse(STATE) as unknown,
          messages: JSON.parse(MESSAGES) as unknown,
        })
        assert.notEqual(saved.isError, true, JSON.stringify(saved.content))
      } finally {
        await first.close()
      }
      for (let round = 0; round < 2; round++) {
        const mcp = await connectMcp(temp.home, {env})
        try {
          const resumed = (await mcp.call('checkpoint_resume', {agent_id: 'a', include_messages: true}))
            .structuredContent as {state: unknown; messages: unknown}
          assert.equal(canonicalJson(resumed.state), canonicalOfText(STATE), `round ${round}`)
          assert.equal(canonicalJson(resumed.messages), canonicalOfText(MESSAGES), `round ${round}`)
          const again = await mcp.call('checkpoint_save', {
            agent_id: 'a',
            state: resumed.state,
            messages: resumed.messages,
          })
          assert.notEqual(again.isError, true, JSON.stringify(again.content))
        } finally {
          await mcp.close()
        }
      }
      const cli = JSON.parse(run(['resume', '--agent', 'a', '--messages', '--json'])) as {
        state: unknown
        messages: unknown
      }
      assert.equal(canonicalJson(cli.state), canonicalOfText(STATE))
      assert.equal(canonicalJson(cli.messages), canonicalOfText(MESSAGES))
      assert.match(
        run(['checkpoints', '--agent', 'a']),
        /^1\. .*, 2 messages; state: constructor, prototype, __proto__/m,
      )
    })

    it('messages given to mem save (--messages and --messages-file) come back whole', () => {
      const file = join(temp.home, 'messages.json')
      writeFileSync(file, MESSAGES)
      run(['save', '--agent', 'a', '--state', STATE, '--messages', MESSAGES])
      run(['save', '--agent', 'b', '--state-file', '-', '--messages-file', file], {input: STATE})
      for (const agent of ['a', 'b']) {
        const json = JSON.parse(run(['resume', '--agent', agent, '--messages', '--json'])) as {messages: unknown}
        assert.equal(canonicalJson(json.messages), canonicalOfText(MESSAGES), agent)
        const prose = resumeProseParts(run(['resume', '--agent', agent, '--messages']))
        assert.equal(canonicalJson(prose.messages), canonicalOfText(MESSAGES), agent)
      }
    })

    it('mem export writes them; mem import and mem store copy (into the other store) keep them', async () => {
      run(['save', '--agent', 'a', '--state', STATE, '--messages', MESSAGES])
      const exported = run(['export', '--agent', 'a'])
      const line = JSON.parse(exported.split('\n')[1]!) as {state: unknown; messages: unknown}
      assert.equal(canonicalJson(line.state), canonicalOfText(STATE))
      assert.equal(canonicalJson(line.messages), canonicalOfText(MESSAGES))

      const imported = tempHome()
      const other = tempHome()
      try {
        const importEnv = {MEM_STORE: store === 'files' ? undefined : await freshDatabase()}
        run(['import', '-'], {home: imported.home, env: importEnv, input: exported})
        const copyEnv = {MEM_STORE: store === 'files' ? await freshDatabase() : undefined}
        run(['store', 'copy', '--to', copyEnv.MEM_STORE ?? other.home])
        for (const [what, home, target] of [
          ['imported', imported.home, importEnv],
          ['copied', other.home, copyEnv],
        ] as const) {
          const back = JSON.parse(run(['resume', '--agent', 'a', '--messages', '--json'], {home, env: target})) as {
            state: unknown
            messages: unknown
          }
          assert.equal(canonicalJson(back.state), canonicalOfText(STATE), what)
          assert.equal(canonicalJson(back.messages), canonicalOfText(MESSAGES), what)
          // Imported again, the same checkpoint is the one already stored, not a different one under its id.
          const report = JSON.parse(run(['import', '-', '--json'], {home, env: target, input: exported})) as {
            skipped: {message: string}[]
          }
          assert.match(report.skipped[0]?.message ?? '', /already has checkpoint/, what)
        }
      } finally {
        imported.cleanup()
        other.cleanup()
      }
    })
  })
}
