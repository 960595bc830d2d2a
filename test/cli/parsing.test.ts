import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'

import {BIN, childEnv, mem, tempHome, type RunResult} from '../helpers/mem.js'
import {memAtTerminal} from '../helpers/terminal.js'

type Path = 'fast' | 'oclif'
const PATHS: Path[] = ['fast', 'oclif']

function run(home: string, args: string[], path: Path, input?: string): RunResult {
  return mem(home, args, {input, env: {MEM_NO_FAST_PATH: path === 'oclif' ? '1' : undefined}})
}

function listed(home: string): {content: string; tags: string[]}[] {
  return (JSON.parse(mem(home, ['list', '--json']).stdout) as {facts: {content: string; tags: string[]}[]}).facts.map(
    ({content, tags}) => ({content, tags}),
  )
}

describe('the command line parses as people type it', () => {
  let home: ReturnType<typeof tempHome>
  beforeEach(() => {
    home = tempHome()
  })
  afterEach(() => home.cleanup())

  for (const path of PATHS) {
    describe(`(${path} path)`, () => {
      it('says a missing or too long search or fact text in a sentence, not as a label', () => {
        for (const args of [['search'], ['search', ''], ['search', '  ']]) {
          const r = run(home.home, args, path)
          assert.equal(r.code, 2)
          assert.equal(
            r.stderr,
            'Error: no words to search for: give them after the command (mem search deploy steps), quoted or not (mem search "deploy steps")\n',
          )
        }
        const long = run(home.home, ['add', 'x'.repeat(16_001)], path)
        assert.equal(long.code, 2)
        assert.equal(long.stderr, 'Error: invalid input: the fact text must be at most 16000 characters\n')
        // A flag keeps its label.
        assert.equal(
          run(home.home, ['add', '--tag', '', 'x'], path).stderr,
          'Error: invalid input: --tag: a tag must not be empty\n',
        )
      })

      it('--tag takes one value: the words after it are the fact', () => {
        const r = run(home.home, ['add', '--tag', 'ops', 'Staging is read-only on Fridays'], path)
        assert.equal(r.code, 0, r.stderr)
        assert.equal(run(home.home, ['add', '--tag', 'ops', 'Deploys', 'on', 'Tuesdays', '--tag', 'ci'], path).code, 0)
        assert.deepEqual(
          listed(home.home).sort((a, b) => a.content.localeCompare(b.content)),
          [
            {content: 'Deploys on Tuesdays', tags: ['ops', 'ci']},
            {content: 'Staging is read-only on Fridays', tags: ['ops']},
          ],
        )
      })

      it('--tag on a search leaves the query its words', () => {
        run(home.home, ['add', 'Deploys happen on Tuesdays', '--tag', 'ops'], path)
        const r = run(home.home, ['search', '--tag', 'ops', 'deploy', '--json'], path)
        assert.equal(r.code, 0, r.stderr)
        assert.equal((JSON.parse(r.stdout) as {query: string; count: number}).query, 'deploy')
      })

      it('with words on stdin, a word after --tag is not another tag', () => {
        const r = run(home.home, ['add', '--tag', 'ops', 'deploys', '--json'], path, 'x\n')
        assert.equal(r.code, 0, r.stderr)
        assert.deepEqual(listed(home.home), [{content: 'deploys', tags: ['ops']}])
      })

      it('a flag without its value, or a value of the wrong kind, is a usage error: exit 2, code invalid_input', () => {
        for (const args of [
          ['search', '--agent', '--json'],
          ['search', 'x', '--limit', 'abc', '--json'],
          ['list', '--limit', 'ten', '--json'],
          ['search', 'x', '--bogus', '--json'],
        ]) {
          const r = run(home.home, args, path)
          assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`)
          const body = JSON.parse(r.stdout) as {error: {code: string; message: string}}
          assert.equal(body.error.code, 'invalid_input', args.join(' '))
          assert.doesNotMatch(body.error.message, /See more help|\n/)
        }
        assert.match(
          run(home.home, ['search', 'x', '--limit', 'abc'], path).stderr,
          /^Error: --limit: expected an integer but received: abc \(see mem search --help\)\n$/,
        )
      })

      it('--json after -- is the fact, and the output is prose', () => {
        const r = run(home.home, ['add', '--', '--json'], path)
        assert.equal(r.code, 0, r.stderr)
        assert.match(r.stdout, /^Stored fact \w{26} for agent default\.\n$/)
        assert.deepEqual(listed(home.home), [{content: '--json', tags: []}])
      })

      it('mem add with no text says where the text goes', () => {
        const r = run(home.home, ['add'], path, '')
        assert.equal(r.code, 2)
        assert.match(r.stderr, /no fact to remember: give its text as words .*quoted .*or on stdin/)
      })
    })
  }

  it("a flag rule that fails is said as the rule alone, without oclif's preamble, piped or at a terminal", () => {
    const missing = mem(home.home, ['store', 'copy'])
    assert.equal(missing.code, 2)
    assert.equal(missing.stderr, 'Error: --to is required (see mem store copy --help)\n')
    const both = mem(home.home, [
      'save',
      '--state',
      '{}',
      '--state-file',
      's.json',
      '--messages',
      '[]',
      '--messages-file',
      'm.json',
    ])
    assert.equal(both.code, 2)
    assert.equal(
      both.stderr,
      'Error: --messages-file=m.json cannot also be provided when using --messages; --state-file=s.json cannot also be provided when using --state (see mem save --help)\n',
    )
    const shown = memAtTerminal(home.home, ['store', 'copy'])
    assert.equal(shown.code, 2)
    assert.equal(shown.stdout, 'Error: --to is required (see mem store copy --help)\n')
  })

  it('mem add at a terminal with no text says where the text goes, and stores nothing', () => {
    const r = memAtTerminal(home.home, ['add'])
    assert.equal(r.code, 2, r.stdout)
    assert.match(
      r.stdout,
      /no fact to remember: give its text as words \(mem add Prefers pnpm\), quoted \(mem add "Prefers pnpm"\), or on stdin/,
    )
    assert.deepEqual(listed(home.home), [])
  })

  it('a mistyped command suggests the nearest one, piped or at a terminal, and exits 2 without prompting', () => {
    const piped = mem(home.home, ['sarch', 'deploy'])
    assert.equal(piped.code, 2)
    assert.equal(
      piped.stderr,
      'Error: sarch is not a mem command. Did you mean "mem search"? Run "mem help" for the list of commands.\n',
    )
    const json = mem(home.home, ['mcp', 'serv', '--json'])
    assert.equal(json.code, 2)
    assert.match(
      (JSON.parse(json.stdout) as {error: {message: string}}).error.message,
      /Did you mean "mem mcp serve"\?/,
    )
    const tty = memAtTerminal(home.home, ['sarch'])
    assert.equal(tty.code, 2)
    assert.match(tty.stdout, /sarch is not a mem command\. Did you mean "mem search"\?/)
    assert.doesNotMatch(tty.stdout, /\(Y\/n\)|\?\s*$/)
  })

  it('mem mcp serve refuses a default agent that is not an agent id at start, on stdio and over HTTP', () => {
    // A server that started anyway would look connected and fail every call: bounded, not waited for.
    const serve = (args: string[], env: Record<string, string> = {}) => {
      const r = spawnSync(process.execPath, [BIN, 'mcp', 'serve', ...args], {
        env: childEnv(home.home, env),
        input: '',
        encoding: 'utf8',
        timeout: 20_000,
      })
      return {code: r.status, stderr: r.stderr}
    }
    const wrong = 'may use letters, digits and . _ : @ + / - and must start with a letter or digit'
    for (const extra of [[], ['--http', '--port', '0']]) {
      const flag = serve(['--agent', 'bad agent', ...extra])
      assert.equal(flag.code, 2, flag.stderr)
      assert.equal(flag.stderr, `Error: invalid input: --agent: ${wrong}\n`)
      const env = serve(extra, {MEM_AGENT: 'bad agent'})
      assert.equal(env.code, 2, env.stderr)
      assert.equal(env.stderr, `Error: invalid default agent "bad agent" (from --agent or MEM_AGENT): ${wrong}\n`)
    }
  })

  it('a word after a command that takes none is an unexpected argument, wherever the flags are', () => {
    for (const [args, word, command] of [
      [['export', 'backup.jsonl'], 'backup.jsonl', 'export'],
      [['list', 'deploy', '--agent', 'team'], 'deploy', 'list'],
      [['mcp', 'serve', 'extra'], 'extra', 'mcp serve'],
      [['resume', 'cp1', 'cp2'], 'cp1', 'resume'],
      [['doctor', '--json', 'now'], 'now', 'doctor'],
    ] as const) {
      const r = mem(home.home, [...args])
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`)
      assert.equal(r.stderr, `Error: Unexpected argument: ${word} (see mem ${command} --help)\n`, args.join(' '))
      const json = mem(home.home, [...args, '--json'])
      assert.equal(json.code, 2)
      assert.deepEqual(JSON.parse(json.stdout), {
        error: {code: 'invalid_input', message: `Unexpected argument: ${word} (see mem ${command} --help)`},
      })
    }
  })

  it('mem --agent ID opens the browser on that agent; away from a terminal it says browse needs one', () => {
    mem(home.home, ['add', 'Team standup is at ten', '--agent', 'team'])
    const piped = mem(home.home, ['--agent', 'team'])
    assert.equal(piped.code, 2)
    assert.match(piped.stderr, /mem browse needs a terminal/)
    assert.doesNotMatch(piped.stderr, /not a mem command/)
  })
})
