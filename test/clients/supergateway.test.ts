import assert from 'node:assert/strict'
import {spawn, type ChildProcess} from 'node:child_process'
import {createServer} from 'node:net'
import {join} from 'node:path'

import {Client} from '@modelcontextprotocol/sdk/client/index.js'
import {StdioClientTransport} from '@modelcontextprotocol/sdk/client/stdio.js'
import {StreamableHTTPClientTransport} from '@modelcontextprotocol/sdk/client/streamableHttp.js'

import {createToken} from '../helpers/http.js'
import {bridgeSuite} from '../helpers/installed-client.js'
import {BIN, mem} from '../helpers/mem.js'

/** The supergateway version these tests run; installed on first use (test/helpers/installed-client.ts). */
const SUPERGATEWAY = '4.0.0'

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const {port} = server.address() as {port: number}
      server.close(() => resolve(port))
    })
  })
}

/** Connects until the gateway listens: it starts in a second or two, and says nothing when. */
async function connectWhenUp(url: string, child: ChildProcess): Promise<Client> {
  for (let tries = 0; ; tries++) {
    const client = new Client({name: 'behind-supergateway', version: '1'})
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(url)))
      return client
    } catch (error) {
      if (tries >= 100 || child.exitCode !== null) throw error
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
}

describe('supergateway, the bridge people put between stdio and HTTP', function () {
  this.timeout(120_000)
  const suite = bridgeSuite('supergateway', SUPERGATEWAY)

  it('brings mem mcp serve --http to a stdio client, with the token as its bearer', async () => {
    const token = createToken(suite.home, ['--name', 'gateway'])
    const client = new Client({name: 'stdio-only', version: '1'})
    await client.connect(
      new StdioClientTransport({
        command: join(suite.bin, 'supergateway'),
        args: ['--streamableHttp', suite.url, '--oauth2Bearer', token, '--logLevel', 'none'],
        stderr: 'ignore',
      }),
    )
    try {
      assert.equal((await client.listTools()).tools.length, 5)
      const added = await client.callTool({name: 'memory_add', arguments: {content: 'Stored through the gateway'}})
      assert.equal((added.structuredContent as {stored: boolean}).stored, true, JSON.stringify(added))
    } finally {
      await client.close()
    }
    assert.match(mem(suite.home, ['search', 'gateway']).stdout, /Stored through the gateway/)
  })

  it('refuses a stdio client whose bearer is wrong, storing nothing', async () => {
    const before = mem(suite.home, ['list', '--json']).stdout
    const client = new Client({name: 'stdio-only', version: '1'})
    await assert.rejects(
      client.connect(
        new StdioClientTransport({
          command: join(suite.bin, 'supergateway'),
          args: ['--streamableHttp', suite.url, '--oauth2Bearer', 'mem_not-a-token', '--logLevel', 'none'],
          stderr: 'ignore',
        }),
      ),
    )
    await client.close()
    assert.equal(mem(suite.home, ['list', '--json']).stdout, before)
  })

  it('serves mem mcp serve on stdio over Streamable HTTP, on the same store', async () => {
    assert.equal(mem(suite.home, ['add', 'The wrapped server finds the zebrafish tank notes']).code, 0)
    const port = await freePort()
    const child = spawn(
      join(suite.bin, 'supergateway'),
      [
        '--stdio',
        `"${process.execPath}" "${BIN}" mcp serve`,
        '--outputTransport',
        'streamableHttp',
        '--port',
        String(port),
      ],
      {env: {...process.env, MEM_HOME: suite.home}, stdio: 'ignore'},
    )
    try {
      const client = await connectWhenUp(`http://127.0.0.1:${port}/mcp`, child)
      try {
        assert.equal((await client.listTools()).tools.length, 5)
        const found = await client.callTool({name: 'memory_search', arguments: {query: 'zebrafish'}})
        assert.equal((found.structuredContent as {count: number}).count, 1, JSON.stringify(found))
      } finally {
        await client.close()
      }
    } finally {
      child.kill()
    }
  })
})
