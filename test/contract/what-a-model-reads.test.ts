import assert from 'node:assert/strict'
import {spawn, spawnSync} from 'node:child_process'

import {serveDuringSuite} from '../helpers/mcp.js'
import {BIN, childEnv} from '../helpers/mem.js'

describe('what a model and a person read from mem mcp serve', () => {
  const suite = serveDuringSuite()

  it('sends instructions at initialize: what mem is for and when to search, add, save and resume', () => {
    const text = suite.mcp.client!.getInstructions() ?? ''
    for (const word of [
      'memory_search',
      'memory_add',
      'memory_reflect',
      'checkpoint_save',
      'checkpoint_resume',
      'agent_id',
    ])
      assert.ok(text.includes(word), `${word} in: ${text}`)
  })

  it('every agent_id says to usually leave it out, and when not to', () => {
    for (const tool of suite.mcp.tools) {
      const description =
        (tool.inputSchema.properties as Record<string, {description?: string}>).agent_id?.description ?? ''
      assert.match(description, /^Whose memory to use\. Usually leave this out/, tool.name)
      assert.match(description, /only when the user asks for a separate, named memory/, tool.name)
      assert.doesNotMatch(description, /--agent|MEM_AGENT/, tool.name)
    }
  })

  it('memory_reflect says which tool adds a new fact; its payload has agent_id beside agent', async () => {
    const reflect = suite.mcp.tools.find((t) => t.name === 'memory_reflect')!
    assert.match(reflect.description ?? '', /To store a new fact, use memory_add/)
    const r = await suite.mcp.call('memory_reflect', {action: 'add', content: 'Deploys happen on Tuesdays'})
    const payload = r.structuredContent as {agent: string; agent_id: string}
    assert.equal(payload.agent, 'default')
    assert.equal(payload.agent_id, 'default')
  })

  it('an unknown tool is a protocol error whose message carries the code once', async () => {
    await assert.rejects(suite.mcp.client!.callTool({name: 'memory_forget', arguments: {}}), (e: Error) => {
      assert.equal(
        e.message,
        'MCP error -32602: Unknown tool "memory_forget". Available tools: memory_search, memory_add, checkpoint_save, checkpoint_resume, memory_reflect.',
      )
      return true
    })
  })
})

describe('mem mcp serve at a terminal and under a client', () => {
  it('at a terminal, says on stderr that it waits for a client on stdin and how to add it to one', () => {
    const command = `timeout -s INT 4 '${process.execPath}' '${BIN}' mcp serve`
    const r = spawnSync('script', ['-qec', command, '/dev/null'], {
      env: childEnv('/nonexistent-mem-home'),
      input: '',
      encoding: 'utf8',
      timeout: 30_000,
    })
    assert.match(r.stdout, /mem mcp serve: waiting for an MCP client on stdin .*mem mcp install --client claude-code/)
  })

  it('under a client (stdin a pipe), stderr stays empty', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', 'serve'], {env: childEnv('/nonexistent-mem-home')})
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
    const closed = new Promise((done) => child.on('close', done))
    child.stdin.write(
      `${JSON.stringify({jsonrpc: '2.0', id: 1, method: 'initialize', params: {protocolVersion: '2025-06-18', capabilities: {}, clientInfo: {name: 't', version: '1'}}})}\n`,
    )
    while (!stdout.includes('"id":1')) await new Promise((r) => setTimeout(r, 20))
    child.stdin.end()
    await closed
    assert.equal(stderr, '')
  })
})
