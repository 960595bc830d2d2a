import assert from 'node:assert/strict'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'

import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js'

import {createToken, startHttpServe} from '../helpers/http.js'
import {mem, ROOT, tempHome} from '../helpers/mem.js'

interface Remote {
  client: string
  via: string
  servers_key: string
  snippet: Record<
    string,
    {
      mem: {
        url?: string
        headers?: Record<string, string>
        command?: string
        args?: string[]
        env?: Record<string, string>
      }
    }
  >
  command_line?: string
}

describe('mem mcp config --http', function () {
  this.timeout(60_000)

  it('prints entries a client can connect with: URL and Authorization header, or the mcp-remote bridge', async () => {
    const temp = tempHome()
    const token = createToken(temp.home, ['--name', 'config'])
    const served = await startHttpServe(temp.home)
    try {
      const r = mem(temp.home, ['mcp', 'config', '--http', '--url', served.url, '--token', token, '--json'])
      assert.equal(r.code, 0, r.stderr)
      const clients = (JSON.parse(r.stdout) as {clients: Remote[]}).clients
      assert.deepEqual(
        clients.map((c) => [c.client, c.via]),
        [
          ['claude-desktop', 'mcp-remote'],
          ['claude-code', 'http'],
          ['cursor', 'http'],
          ['vscode', 'http'],
        ],
      )
      for (const c of clients.filter((c) => c.via === 'http')) {
        const entry = c.snippet[c.servers_key]!.mem
        const client = new Client({name: c.client, version: '1'})
        await client.connect(
          new StreamableHTTPClientTransport(new URL(entry.url!), {requestInit: {headers: entry.headers}}),
        )
        assert.equal((await client.listTools()).tools.length, 5, c.client)
        await client.close()
      }
      const desktop = clients[0]!.snippet.mcpServers!.mem
      assert.deepEqual(
        [desktop.command, ...desktop.args!],
        ['npx', '-y', 'mcp-remote', served.url, '--header', 'Authorization:${MEM_AUTH_HEADER}', '--allow-http'],
      )
      assert.equal(desktop.env?.MEM_AUTH_HEADER, `Bearer ${token}`)
      assert.equal(
        clients[1]!.command_line,
        `claude mcp add --scope user --transport http mem ${served.url} --header 'Authorization: Bearer ${token}'`,
      )
    } finally {
      await served.stop()
      temp.cleanup()
    }
  })

  it("docs/http.md gives each client's entry as mem mcp config --http prints it", () => {
    const temp = tempHome()
    try {
      const url = 'http://127.0.0.1:7411/mcp'
      const r = mem(temp.home, ['mcp', 'config', '--http', '--json'])
      assert.equal(r.code, 0, r.stderr)
      const printed = new Map(
        (JSON.parse(r.stdout) as {clients: (Remote & {name: string})[]}).clients.map((c) => [
          c.name,
          c.snippet[c.servers_key]!.mem,
        ]),
      )
      const rows = readFileSync(join(ROOT, 'docs', 'http.md'), 'utf8')
        .split('\n')
        .flatMap((line) => {
          const row = /^\| ([^|]+?) \| [^|]+ \| `(\{.*?\})`/.exec(line)
          return row ? [[row[1]!, row[2]!] as const] : []
        })
      assert.deepEqual(rows.map(([name]) => name).sort(), [...printed.keys()].sort())
      for (const [name, entry] of rows) {
        const documented = JSON.parse(
          entry
            .replaceAll('URL', JSON.stringify(url))
            .replaceAll('"Bearer …"', '"Bearer <token from mem token create>"'),
        ) as unknown
        assert.deepEqual(documented, printed.get(name), name)
      }
    } finally {
      temp.cleanup()
    }
  })

  it('refuses stdio flags with --http and HTTP flags without it, and a URL that is not one', () => {
    const temp = tempHome()
    try {
      const stdioFlag = mem(temp.home, ['mcp', 'config', '--http', '--agent', 'x'])
      assert.equal(stdioFlag.code, 2)
      assert.match(stdioFlag.stderr, /--agent describes a stdio server; leave it out with --http/)
      const httpFlag = mem(temp.home, ['mcp', 'config', '--token', 'x'])
      assert.equal(httpFlag.code, 2)
      assert.match(httpFlag.stderr, /--token applies only with --http/)
      const badUrl = mem(temp.home, ['mcp', 'config', '--http', '--url', 'ftp://x'])
      assert.equal(badUrl.code, 2)
      assert.match(badUrl.stderr, /--url must start with http:\/\/ or https:\/\//)
    } finally {
      temp.cleanup()
    }
  })
})
