import assert from 'node:assert/strict'
import {request as httpRequest} from 'node:http'

import {
  discoverOAuthProtectedResourceMetadata,
  extractWWWAuthenticateParams,
} from '@modelcontextprotocol/sdk/client/auth.js'

import {createToken, post, rawPost, startHttpServe, type HttpServe} from '../helpers/http.js'
import {tempHome} from '../helpers/mem.js'

const SUFFIXED = '/.well-known/oauth-protected-resource/mcp'
const ROOT = '/.well-known/oauth-protected-resource'

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: {protocolVersion: '2025-11-25', capabilities: {}, clientInfo: {name: 't', version: '1'}},
}

/** A request through node:http, which (unlike fetch) sends the Host header it is given. */
function rawGet(
  url: string,
  headers: Record<string, string> = {},
  method = 'GET',
): Promise<{status: number; headers: Record<string, unknown>; text: string}> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {method, headers}, (res) => {
      let data = ''
      res.setEncoding('utf8').on('data', (d: string) => (data += d))
      res.on('end', () => resolve({status: res.statusCode ?? 0, headers: res.headers, text: data}))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('mem mcp serve --http: OAuth protected resource metadata (RFC 9728)', function () {
  this.timeout(120_000)
  const temp = tempHome()
  let server: HttpServe
  let origin: string
  let port: string
  const tokens = {} as Record<'full' | 'reader', string>

  before(async () => {
    tokens.full = createToken(temp.home, ['--name', 'laptop-zebra', '--agent', 'secret-agent-7'])
    tokens.reader = createToken(temp.home, ['--name', 'reader-okapi', '--agent', 'team-*', '--read-only'])
    server = await startHttpServe(temp.home)
    origin = new URL(server.url).origin
    port = new URL(server.url).port
  })

  after(async () => {
    await server?.stop()
    temp.cleanup()
  })

  it('serves the metadata without a token, at the endpoint-suffixed and the root well-known paths', async () => {
    const expected = {
      resource: server.url,
      resource_name: 'mem',
      bearer_methods_supported: ['header'],
      scopes_supported: ['mem:read', 'mem:write'],
    }
    for (const path of [SUFFIXED, ROOT]) {
      const res = await fetch(`${origin}${path}`)
      assert.equal(res.status, 200, path)
      assert.match(res.headers.get('content-type') ?? '', /^application\/json/)
      assert.deepEqual(await res.json(), expected, path)
    }
    // The resource is the endpoint's URL as the client named the server.
    const named = await rawGet(`${origin}${SUFFIXED}`, {Host: `LocalHost:${port}`})
    assert.equal(named.status, 200)
    assert.equal((JSON.parse(named.text) as {resource: string}).resource, `http://localhost:${port}/mcp`)
  })

  it('points to it from WWW-Authenticate on a 401 without a token, and with a wrong one, where the SDK client finds it', async () => {
    const none = await post(server.url, initialize)
    assert.equal(none.status, 401)
    assert.equal(none.headers.get('www-authenticate'), `Bearer realm="mem", resource_metadata="${origin}${SUFFIXED}"`)

    const wrong = await post(server.url, initialize, {Authorization: `Bearer mem_${'A'.repeat(43)}`})
    assert.equal(wrong.status, 401)
    assert.equal(
      wrong.headers.get('www-authenticate'),
      `Bearer realm="mem", resource_metadata="${origin}${SUFFIXED}", error="invalid_token"`,
    )

    // The official client's own parsing and discovery, as a client starting the flow would use them.
    const params = extractWWWAuthenticateParams(wrong)
    assert.equal(params.error, 'invalid_token')
    assert.equal(params.resourceMetadataUrl?.href, `${origin}${SUFFIXED}`)
    const found = await discoverOAuthProtectedResourceMetadata(server.url, {
      resourceMetadataUrl: params.resourceMetadataUrl,
    })
    assert.equal(found.resource, server.url)
    const probed = await discoverOAuthProtectedResourceMetadata(server.url)
    assert.deepEqual(probed, found)

    // A 401 named by Host points to the metadata under the same name.
    const named = await rawPost(server.url, initialize, {Host: `localhost:${port}`})
    assert.equal(named.status, 401)
    assert.equal(
      named.headers['www-authenticate'],
      `Bearer realm="mem", resource_metadata="http://localhost:${port}${SUFFIXED}"`,
    )
  })

  it('says nothing of the tokens or agents that exist, whoever asks', async () => {
    const anonymous = await (await fetch(`${origin}${SUFFIXED}`)).text()
    for (const token of [tokens.full, tokens.reader]) {
      const res = await fetch(`${origin}${SUFFIXED}`, {headers: {Authorization: `Bearer ${token}`}})
      assert.equal(await res.text(), anonymous)
    }
    for (const secret of [
      'laptop-zebra',
      'reader-okapi',
      'secret-agent-7',
      'team-',
      'mem_',
      tokens.full,
      tokens.reader,
    ])
      assert.ok(!anonymous.includes(secret), secret)
  })

  it('answers where OAuth clients look for an authorization server that there is none, and how to get a token', async () => {
    const lookups: [string, string][] = [
      ['GET', '/.well-known/oauth-authorization-server'],
      ['GET', '/.well-known/oauth-authorization-server/mcp'],
      ['GET', '/.well-known/openid-configuration/mcp'],
      ['GET', '/mcp/.well-known/openid-configuration'],
      ['POST', '/register'],
      ['GET', '/authorize'],
      ['POST', '/token'],
    ]
    for (const [method, path] of lookups) {
      const res = await rawGet(`${origin}${path}`, {}, method)
      assert.equal(res.status, 404, path)
      assert.match(JSON.parse(res.text).error as string, /no OAuth sign-in.*mem token create/, path)
    }
    const other = await rawGet(`${origin}/registered`)
    assert.equal(other.status, 404)
    assert.equal(JSON.parse(other.text).error, 'not found; the MCP endpoint is /mcp')
  })

  it('checks Host and Origin as the endpoint does, and takes GET only', async () => {
    for (const path of [SUFFIXED, ROOT]) {
      const evil = await rawGet(`${origin}${path}`, {Host: 'evil.example'})
      assert.equal(evil.status, 403, path)
      assert.match(evil.text, /Host is not allowed/)
      assert.doesNotMatch(evil.text, /evil\.example\/mcp|resource/)
      const port = await rawGet(`${origin}${path}`, {Host: 'localhost:"x'})
      assert.equal(port.status, 403, path)
      const page = await rawGet(`${origin}${path}`, {Origin: 'http://evil.example'})
      assert.equal(page.status, 403, path)
      assert.match(page.text, /Origin is not allowed/)
      const posted = await rawGet(`${origin}${path}`, {}, 'POST')
      assert.equal(posted.status, 405, path)
      assert.equal(posted.headers.allow, 'GET')
    }
  })
})

describe('mem mcp serve --http --tls-proxy: protected resource metadata', function () {
  this.timeout(60_000)
  const temp = tempHome()
  let server: HttpServe

  before(async () => {
    server = await startHttpServe(temp.home, ['--tls-proxy'])
  })

  after(async () => {
    await server?.stop()
    temp.cleanup()
  })

  it('names the https URL clients reach through the proxy, in the metadata and in the 401', async () => {
    const host = new URL(server.url).host
    const doc = (await (await fetch(`http://${host}${SUFFIXED}`)).json()) as {resource: string}
    assert.equal(doc.resource, `https://${host}/mcp`)
    const res = await post(`http://${host}/mcp`, initialize)
    assert.equal(res.status, 401)
    assert.equal(
      res.headers.get('www-authenticate'),
      `Bearer realm="mem", resource_metadata="https://${host}${SUFFIXED}"`,
    )
  })
})
