import assert from 'node:assert/strict'

import {mem, tempHome, type RunResult} from '../helpers/mem.js'

const PATHS = ['fast', 'oclif'] as const

function run(home: string, args: string[], path: (typeof PATHS)[number] = 'oclif'): RunResult {
  return mem(home, args, {env: {MEM_NO_FAST_PATH: path === 'oclif' ? '1' : undefined}})
}

/** The first stderr line of a usage error, after checking it is one. */
function usage(home: string, args: string[], path?: (typeof PATHS)[number]): string {
  const r = run(home, args, path)
  assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`)
  return r.stderr.trimEnd()
}

describe('CLI errors name the flags and commands a person types, not the MCP fields', () => {
  let home: ReturnType<typeof tempHome>
  before(() => {
    home = tempHome()
  })
  after(() => home.cleanup())

  it('mem reflect names --fact and --content', () => {
    assert.equal(usage(home.home, ['reflect', 'delete']), 'Error: invalid input: action "delete" needs --fact')
    assert.equal(
      usage(home.home, ['reflect', 'merge', '--content', 'x']),
      'Error: invalid input: action "merge" needs --fact (twice or more)',
    )
    assert.equal(
      usage(home.home, ['reflect', 'update', '--fact', '01ARZ3NDEKTSV4RRFFQ69G5FAV']),
      'Error: invalid input: action "update" needs --content',
    )
  })

  it('mem history names its FACT_ID argument and the commands that print ids', () => {
    assert.equal(
      usage(home.home, ['history', 'nope']),
      'Error: invalid input: FACT_ID: must be a 26-character fact id as returned by mem search or mem add',
    )
  })

  it('a field name used as a plain word in a message stays a word', () => {
    const tags = Array.from({length: 33}, (_, i) => ['-t', `t${i}`]).flat()
    assert.equal(usage(home.home, ['add', 'ok', ...tags]), 'Error: invalid input: --tag: at most 32 tags')
  })

  it('mem checkpoints names --limit', () => {
    assert.equal(
      usage(home.home, ['checkpoints', '-n', '0']),
      'Error: invalid input: --limit: must be between 1 and 10000',
    )
  })

  for (const path of PATHS) {
    it(`mem resume, mem search and mem add name their flags (${path} path)`, () => {
      assert.equal(
        usage(home.home, ['resume', '--id', 'nope'], path),
        'Error: invalid input: --id: must be a 26-character checkpoint id as returned by mem save',
      )
      assert.equal(
        usage(home.home, ['search', 'x', '--limit', '0'], path),
        'Error: invalid input: --limit: must be between 1 and 100',
      )
      assert.match(
        usage(home.home, ['add', 'x', '--tag', 'a b'], path),
        /^Error: invalid input: --tag: a tag must not contain spaces/,
      )
      const json = run(home.home, ['resume', '--id', 'nope', '--json'], path)
      assert.deepEqual(JSON.parse(json.stdout), {
        error: {
          code: 'invalid_input',
          message: 'invalid input: --id: must be a 26-character checkpoint id as returned by mem save',
        },
      })
    })
  }
})
