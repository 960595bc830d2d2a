import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {mkdirSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {createToken, startHttpServe} from '../helpers/http.js'
import {installedClient} from '../helpers/installed-client.js'
import {BIN, childEnv, mem, tempHome} from '../helpers/mem.js'

/** The Claude Code version these tests run; installed on first use (test/helpers/installed-client.ts). */
const CLAUDE_CODE = '2.1.197'

/** Claude Code's own CLI, with no network: its "mcp add/get" need neither a login nor a server of Anthropic's. */
function claude(bin: string, home: string, cwd: string, command: string): {code: number; out: string} {
  const env = {
    ...childEnv(home, {HOME: home, XDG_CONFIG_HOME: undefined, CLAUDE_CONFIG_DIR: undefined}),
    PATH: `${bin}:${process.env.PATH ?? ''}`,
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    // Anything that does try the network fails at once instead of reaching it.
    HTTPS_PROXY: 'http://127.0.0.1:9',
    HTTP_PROXY: 'http://127.0.0.1:9',
    // But mem's own HTTP server on loopback is reached directly.
    NO_PROXY: '127.0.0.1',
  }
  const r = spawnSync('bash', ['-c', command], {cwd, env, encoding: 'utf8', timeout: 120_000})
  return {code: r.status ?? -1, out: `${r.stdout}${r.stderr}`}
}

describe('the claude mcp add line mem prints, run by the real Claude Code CLI', () => {
  let h: ReturnType<typeof tempHome>
  let bin: string
  before(function () {
    this.timeout(600_000)
    bin = installedClient('@anthropic-ai/claude-code', CLAUDE_CODE)
  })
  beforeEach(() => {
    h = tempHome()
  })
  afterEach(() => h.cleanup())

  it('adds a server that connects and uses the same store, with MEM_HOME given as a relative path', () => {
    const project = join(h.home, 'project')
    mkdirSync(project)
    // MEM_HOME relative to where mem mcp config runs: the entry must hold it absolute.
    const printed = spawnSync(process.execPath, [BIN, 'mcp', 'config', '--client', 'claude-code', '--json'], {
      cwd: project,
      env: childEnv(h.home, {MEM_HOME: 'store', HOME: h.home}),
      encoding: 'utf8',
    })
    assert.equal(printed.status, 0, printed.stderr)
    const line = (JSON.parse(printed.stdout) as {clients: {command_line: string}[]}).clients[0]!.command_line
    assert.ok(line.includes(`-e MEM_HOME=${join(project, 'store')} `), line)

    const added = claude(bin, h.home, h.home, line)
    assert.equal(added.code, 0, added.out)
    const got = claude(bin, h.home, h.home, 'claude mcp get mem')
    assert.equal(got.code, 0, got.out)
    assert.match(got.out, /Connected/)
    assert.match(got.out, new RegExp(`MEM_HOME=${join(project, 'store')}`))
    const config = JSON.parse(readFileSync(join(h.home, '.claude.json'), 'utf8')) as {
      mcpServers: {mem: {command: string; args: string[]; env: Record<string, string>}}
    }
    assert.deepEqual(config.mcpServers.mem.env, {MEM_HOME: join(project, 'store')})
    assert.deepEqual(config.mcpServers.mem.args, [BIN, 'mcp', 'serve'])
    assert.equal(mem(join(project, 'store'), ['agents']).code, 0)
  })

  it('adds the --http entry mem mcp config prints, which connects with its token and no longer once it is revoked', async function () {
    this.timeout(180_000)
    const token = createToken(h.home, ['--name', 'claude-code'])
    const served = await startHttpServe(h.home)
    try {
      const printed = mem(h.home, [
        'mcp',
        'config',
        '--http',
        '--url',
        served.url,
        '--token',
        token,
        '--client',
        'claude-code',
        '--json',
      ])
      assert.equal(printed.code, 0, printed.stderr)
      const line = (JSON.parse(printed.stdout) as {clients: {command_line: string}[]}).clients[0]!.command_line
      const added = claude(bin, h.home, h.home, `${line}`)
      assert.equal(added.code, 0, added.out)
      const got = claude(bin, h.home, h.home, 'claude mcp get mem')
      assert.match(got.out, /Connected/, got.out)
      assert.match(got.out, /Type: http/)
      assert.equal(mem(h.home, ['token', 'revoke', 'claude-code']).code, 0)
      const refused = claude(bin, h.home, h.home, 'claude mcp get mem')
      assert.match(refused.out, /Failed to connect/, refused.out)
    } finally {
      await served.stop()
    }
  })
})
