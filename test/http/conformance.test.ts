import assert from 'node:assert/strict'
import {spawn} from 'node:child_process'
import {join} from 'node:path'

import {authProxy} from '../helpers/auth-proxy.js'
import {createToken, startHttpServe} from '../helpers/http.js'
import {ROOT, tempHome} from '../helpers/mem.js'

const BASELINE = join(ROOT, 'test', 'http', 'conformance-baseline.yml')
const CLI = join(ROOT, 'node_modules', '@modelcontextprotocol', 'conformance', 'dist', 'index.js')

/**
 * The MCP conformance suite (server mode, its active scenarios) against `mem mcp serve --http`.
 * The suite sends no token, so it talks to the server through a loopback proxy that adds one;
 * the baseline lists the scenarios that need fixtures mem does not have, with the reasons.
 */
describe('MCP conformance suite against mem mcp serve --http', function () {
  this.timeout(300_000)

  it('passes every scenario that applies; the rest are in the baseline', async () => {
    const temp = tempHome()
    const served = await startHttpServe(temp.home, ['--rate-limit', '1000000'])
    const proxy = await authProxy(served.url, createToken(temp.home, ['--name', 'conformance']))
    try {
      const {code, output} = await run(process.execPath, [
        CLI,
        'server',
        '--url',
        proxy.url,
        '--expected-failures',
        BASELINE,
      ])
      assert.equal(code, 0, output.slice(0, 12000))
      for (const scenario of ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection']) {
        assert.match(output, new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`), scenario)
      }
    } finally {
      await proxy.close()
      await served.stop()
      temp.cleanup()
    }
  })
})

function run(command: string, args: string[]): Promise<{code: number | null; output: string}> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {stdio: ['ignore', 'pipe', 'pipe'], env: {...process.env, NO_COLOR: '1'}})
    let output = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({code, output}))
  })
}
