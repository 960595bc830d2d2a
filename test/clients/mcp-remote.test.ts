import assert from 'node:assert/strict'
import {join} from 'node:path'

import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'

import {createToken} from '../helpers/http.js'
import {bridgeSuite} from '../helpers/installed-client.js'
import {mem} from '../helpers/mem.js'

/** The mcp-remote version these tests run; installed on first use (test/helpers/installed-client.ts). */
const MCP_REMOTE = '0.15.1'

interface DesktopEntry {
  command: string
  args: string[]
  env: Record<string, string>
}

/** Claude Desktop's entry as `mem mcp config --http` prints it. */
function desktopEntry(home: string, url: string, token: string): DesktopEntry {
  const r = mem(home, [
    'mcp',
    'config',
    '--http',
    '--url',
    url,
    '--token',
    token,
    '--client',
    'claude-desktop',
    '--json',
  ])
  assert.equal(r.code, 0, r.stderr)
  const [client] = (JSON.parse(r.stdout) as {clients: {snippet: {mcpServers: {mem: DesktopEntry}}}[]}).clients
  return client!.snippet.mcpServers.mem
}

/** Starts the entry as Claude Desktop would, with the installed bridge in place of `npx -y mcp-remote`. */
function bridge(
  bin: string,
  entry: DesktopEntry,
  home: string,
): {transport: StdioClientTransport; stderr: () => string} {
  assert.deepEqual([entry.command, ...entry.args.slice(0, 2)], ['npx', '-y', 'mcp-remote'])
  const transport = new StdioClientTransport({
    command: join(bin, 'mcp-remote'),
    args: [...entry.args.slice(2), '--transport', 'http-only'],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: home,
      // Where mcp-remote keeps its sign-in state: in the test's home, not the user's.
      MCP_REMOTE_CONFIG_DIR: join(home, 'mcp-auth'),
      ...entry.env,
    },
    stderr: 'pipe',
  })
  let stderr = ''
  transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()))
  return {transport, stderr: () => stderr}
}

describe("Claude Desktop's entry from mem mcp config --http, run by the real mcp-remote bridge", function () {
  this.timeout(120_000)
  const suite = bridgeSuite('mcp-remote', MCP_REMOTE)

  it('connects with the token and serves every tool', async () => {
    const token = createToken(suite.home, ['--name', 'desktop'])
    const {transport, stderr} = bridge(suite.bin, desktopEntry(suite.home, suite.url, token), suite.home)
    const client = new Client({name: 'claude-desktop', version: '1'})
    try {
      await client.connect(transport)
      assert.equal((await client.listTools()).tools.length, 5, stderr())
      const added = await client.callTool({name: 'memory_add', arguments: {content: 'Stored through mcp-remote'}})
      assert.equal((added.structuredContent as {stored: boolean}).stored, true, JSON.stringify(added))
    } finally {
      await client.close()
    }
    assert.match(mem(suite.home, ['search', 'mcp-remote']).stdout, /Stored through mcp-remote/)
  })

  it('with a revoked token, fails saying the token was refused and how to make one, having stored nothing', async () => {
    const token = createToken(suite.home, ['--name', 'revoked'])
    assert.equal(mem(suite.home, ['token', 'revoke', 'revoked']).code, 0)
    const before = mem(suite.home, ['list', '--json']).stdout
    const {transport, stderr} = bridge(suite.bin, desktopEntry(suite.home, suite.url, token), suite.home)
    const client = new Client({name: 'claude-desktop', version: '1'})
    await assert.rejects(client.connect(transport))
    await client.close()
    assert.match(stderr(), /had its token refused/)
    assert.match(stderr(), /mem token create/)
    assert.equal(mem(suite.home, ['list', '--json']).stdout, before)
  })
})
