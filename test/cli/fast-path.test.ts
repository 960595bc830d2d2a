import assert from 'node:assert/strict'
import {existsSync, readFileSync} from 'node:fs'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'

import {modulesResolvedBy, packagesAmong} from '../helpers/loads.js'
import {BIN, mem, tempHome, type RunResult} from '../helpers/mem.js'

type Env = Record<string, string | undefined>

/** One invocation of the built binary, through the fast path or forced through oclif. */
function run(
  home: string,
  args: string[],
  path: 'fast' | 'oclif',
  options: {input?: string; env?: Env} = {},
): RunResult {
  return mem(home, args, {
    input: options.input,
    env: {...options.env, MEM_NO_FAST_PATH: path === 'oclif' ? '1' : undefined},
  })
}

/** Fact ids and times differ between two runs that store something; everything else must not. */
function normalized(r: RunResult): RunResult {
  const scrub = (text: string) =>
    text.replace(/\b[0-9A-HJKMNP-TV-Z]{26}\b/g, '<id>').replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/g, '<time>')
  return {code: r.code, stdout: scrub(r.stdout), stderr: scrub(r.stderr)}
}

describe('the fast path prints what oclif prints', () => {
  let home: ReturnType<typeof tempHome>
  before(() => {
    home = tempHome()
    for (const args of [
      ['Deploys happen on Tuesdays', '--tag', 'ops'],
      ['Deploy steps live in the runbook', '--tag', 'ops', '--tag', 'ci'],
      ['Alice prefers tea', '--agent', 'alice'],
    ]) {
      assert.equal(mem(home.home, ['add', ...args]).code, 0)
    }
    assert.equal(mem(home.home, ['save', '--agent', 'alice', '--state', '{"step":2,"todo":["ship"]}']).code, 0)
  })
  after(() => home.cleanup())

  const searches: {args: string[]; env?: Env}[] = [
    {args: ['search', 'deploys']},
    {args: ['search', 'deploys', '--json']},
    {args: ['search', '--json', 'deploy', 'steps', '-n', '1', '--tag=ops']},
    {args: ['search', 'deploy', '--tag', 'ops', 'ci', '--json']},
    {args: ['search', 'tea', '-a', 'alice']},
    {args: ['search', 'tea'], env: {MEM_AGENT: 'alice'}},
    {args: ['search', 'deploys', '--since', '2020-01-01', '--until', 'tomorrow', '--json']},
    {args: ['search']},
    {args: ['search', '--json']},
    {args: ['search', 'x', '--limit', '0']},
    {args: ['search', 'x', '--limit', '0', '--json']},
    {args: ['search', 'x', '--limit=1000', '--json']},
    {args: ['search', 'x', '--agent', 'bad id!']},
    {args: ['search', 'x', '--agent', 'bad id!', '--json']},
    {args: ['search', 'x', '--json'], env: {MEM_AGENT: '!nope'}},
    {args: ['search', 'x', '--since', 'whenever', '--json']},
    {args: ['search', 'x', '--since', 'whenever']},
    {args: ['list', '--json']},
    {args: ['list', '-t', 'ops', '-n', '1']},
    {args: ['list', '--all', '--since', 'last year', '--agent', 'alice', '--json']},
    {args: ['list', '--limit', '0', '--json']},
    {args: ['resume']},
    {args: ['resume', '--json', '--agent', 'alice']},
    {args: ['resume', '-a', 'alice']},
    {args: ['resume', '--on-missing', 'empty', '--json']},
    {args: ['resume', '--on-missing', 'sometimes']},
    {args: ['resume', '--id', 'nope', '--json']},
    // Declined by the fast path: oclif answers either way.
    {args: ['search', 'x', '--limit', 'ten']},
    {args: ['search', 'x', '--bogus', '--json']},
    {args: ['list', 'stray', '--json']},
  ]

  for (const {args, env} of searches) {
    it(`mem ${args.join(' ')}${env ? ` (${JSON.stringify(env)})` : ''}`, () => {
      const fast = run(home.home, args, 'fast', {env})
      assert.deepEqual(fast, run(home.home, args, 'oclif', {env}))
      assert.ok(fast.stdout !== '' || fast.stderr !== '', 'the command printed something')
    })
  }

  const adds: {args: string[]; input?: string; env?: Env}[] = [
    {args: ['add', 'the', 'cat', 'saw', 'the', 'dog', '--tag', 'pets']},
    {args: ['add', '--json', 'Staging', 'is', 'read-only', '-t', 'ops', 'db']},
    {args: ['add', '--agent', 'bob'], input: 'From stdin, trimmed\n'},
    {args: ['add', '--json'], input: ''},
    {args: ['add', 'x', '--agent', 'bad id!', '--json']},
    {args: ['add', 'x', '--tag', '', '--json']},
    {args: ['add', 'x'], env: {MEM_AGENT: '!nope'}},
  ]

  for (const {args, input, env} of adds) {
    it(`mem ${args.join(' ')}${input === undefined ? '' : ` < ${JSON.stringify(input)}`}: same output, same fact stored`, () => {
      const stored = (path: 'fast' | 'oclif') => {
        const h = tempHome()
        try {
          const r = normalized(run(h.home, args, path, {input, env}))
          const agent = args.includes('bob') ? 'bob' : 'default'
          const list = normalized(mem(h.home, ['list', '--agent', agent, '--json']))
          return {r, list}
        } finally {
          h.cleanup()
        }
      }
      const fast = stored('fast')
      assert.deepEqual(fast, stored('oclif'))
    })
  }

  it('keeps repeated words in the order given', () => {
    const r = mem(home.home, ['add', 'the', 'cat', 'saw', 'the', 'dog', '--agent', 'order', '--json'])
    assert.equal(r.code, 0, r.stderr)
    for (const path of ['fast', 'oclif'] as const) {
      const found = JSON.parse(run(home.home, ['search', 'cat', '--agent', 'order', '--json'], path).stdout) as {
        facts: {content: string}[]
      }
      assert.equal(found.facts[0]?.content, 'the cat saw the dog')
    }
  })

  it("finds the data in the same place without MEM_HOME: oclif's config dir", () => {
    const env = {MEM_HOME: undefined, HOME: home.home, XDG_CONFIG_HOME: undefined, MEM_CONFIG_DIR: undefined}
    assert.equal(mem(home.home, ['add', 'Lives in the config dir', '--json'], {env}).code, 0)
    assert.ok(existsSync(join(home.home, '.config', 'mem', 'agents')), 'stored under $HOME/.config/mem')
    const listed = JSON.parse(mem(home.home, ['list', '--json'], {env}).stdout) as {facts: {content: string}[]}
    assert.deepEqual(
      listed.facts.map((f) => f.content),
      ['Lives in the config dir'],
    )
  })
})

describe('what the fast path loads', () => {
  let home: ReturnType<typeof tempHome>
  before(() => {
    home = tempHome()
    mem(home.home, ['add', 'Deploys happen on Tuesdays'])
  })
  after(() => home.cleanup())

  /** The files of dist/ a run loaded that hold bundled oclif code, and the heavy packages it resolved. */
  function oclifAndHeavy(urls: string[]): string[] {
    const bundledOclif = urls.filter(
      (u) =>
        u.startsWith('file:') &&
        u.includes('/dist/') &&
        readFileSync(fileURLToPath(u), 'utf8').includes('node_modules/@oclif/core/'),
    )
    return [...bundledOclif, ...packagesAmong(urls, '@oclif|ink|react|@modelcontextprotocol')]
  }

  it('mem search, add, list and resume never load @oclif/core, ink, react or the MCP SDK', () => {
    for (const args of [
      ['search', 'deploys'],
      ['search', 'deploys', '--json', '--since', 'last week', '-n', '3'],
      ['add', 'Standups are at ten', '--tag', 'team'],
      ['add', '--json', 'x', '-a', 'alice'],
      ['list', '--all'],
      ['resume', '--on-missing', 'empty'],
    ]) {
      const urls = modulesResolvedBy(home.home, [BIN, ...args])
      assert.ok(
        urls.some((u) => u.endsWith('/dist/code-cache.cjs')),
        `the trace saw mem load for ${args.join(' ')}`,
      )
      assert.deepEqual(oclifAndHeavy(urls), [], `mem ${args.join(' ')}`)
    }
  })

  it('anything it declines, and MEM_NO_FAST_PATH=1, go through oclif', () => {
    const help = modulesResolvedBy(home.home, [BIN, 'search', '--help'])
    assert.ok(oclifAndHeavy(help).length > 0, 'mem search --help loaded oclif')
    const forced = modulesResolvedBy(home.home, [BIN, 'search', 'deploys'], {MEM_NO_FAST_PATH: '1'})
    assert.ok(
      oclifAndHeavy(forced).some((u) => u.includes('/dist/')),
      'MEM_NO_FAST_PATH=1 loaded oclif',
    )
    const r = mem(home.home, ['search', '--help'])
    assert.equal(r.code, 0, r.stderr)
    assert.match(r.stdout, /^Find facts by relevance\.\n\nUSAGE\n {2}\$ mem search/)
  })
})
