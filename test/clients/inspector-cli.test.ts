import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {join} from 'node:path'

import {installedClient} from '../helpers/installed-client.js'
import {BIN, childEnv, mem, tempHome} from '../helpers/mem.js'

/** The MCP Inspector version these tests run; installed on first use (test/helpers/installed-client.ts). */
const INSPECTOR = '0.15.0'

interface ToolResult {
  content: {type: string; text: string}[]
  structuredContent?: Record<string, unknown>
  isError?: boolean
}

/**
 * The Inspector's CLI turns each `--tool-arg key=value` into a number, boolean, array or object
 * only when the advertised property has that one plain `type`; under any other schema the value
 * stays the text typed. These calls pass every optional argument of those kinds that way,
 * through the real CLI against the built `mem mcp serve`, each in its own process as a user
 * would run it.
 */
describe("the MCP Inspector's CLI sends numeric, boolean and array arguments", () => {
  let bin: string
  let h: ReturnType<typeof tempHome>
  before(function () {
    // The first run installs the Inspector.
    this.timeout(600_000)
    bin = installedClient('@modelcontextprotocol/inspector', INSPECTOR)
  })
  beforeEach(() => {
    h = tempHome()
  })
  afterEach(() => h.cleanup())

  const call = (tool: string, args: string[]): ToolResult => {
    const r = spawnSync(
      join(bin, 'mcp-inspector'),
      [
        '--cli',
        process.execPath,
        BIN,
        'mcp',
        'serve',
        '--method',
        'tools/call',
        '--tool-name',
        tool,
        ...args.flatMap((arg) => ['--tool-arg', arg]),
      ],
      {env: childEnv(h.home), encoding: 'utf8', timeout: 120_000},
    )
    assert.equal(r.status, 0, `${r.stdout}${r.stderr}`)
    const result = JSON.parse(r.stdout) as ToolResult
    assert.notEqual(result.isError, true, r.stdout)
    return result
  }

  it('searches with limit, tags and as_you_type, and adds with tags and allow_duplicate', () => {
    for (const content of ['Prefers pnpm for installs', 'Uses pnpm workspaces'])
      assert.equal(mem(h.home, ['add', content, '--tag', 'tools']).code, 0)
    const added = call('memory_add', ['content=Uses pnpm workspaces', 'tags=["tools","js"]', 'allow_duplicate=true'])
    assert.equal(added.structuredContent!.stored, true)
    assert.equal(added.structuredContent!.duplicate, false, 'allow_duplicate arrived as true')

    const found = call('memory_search', ['query=pnpm', 'limit=1', 'tags=["js"]', 'as_you_type=false'])
    assert.equal(found.structuredContent!.count, 1, 'limit arrived as a number, tags as an array')
    assert.deepEqual((found.structuredContent!.facts as {tags: string[]}[])[0]!.tags, ['tools', 'js'])
  })

  it('resumes with include_messages and last_messages, and merges fact_ids', () => {
    call('checkpoint_save', ['state={"step":3}', 'messages=["one","two","three"]'])
    const resumed = call('checkpoint_resume', ['include_messages=true', 'last_messages=2'])
    assert.deepEqual(resumed.structuredContent!.messages, ['two', 'three'])

    for (const content of ['Deploys on Tuesdays', 'Deploys happen Tuesday'])
      assert.equal(mem(h.home, ['add', content]).code, 0)
    const ids = (JSON.parse(mem(h.home, ['list', '--json']).stdout) as {facts: {id: string}[]}).facts.map((f) => f.id)
    assert.equal(ids.length, 2)
    const merged = call('memory_reflect', [
      'action=merge',
      `fact_ids=${JSON.stringify(ids)}`,
      'content=Deploys happen on Tuesdays',
    ])
    assert.equal(merged.structuredContent!.ok, true)
    assert.match(mem(h.home, ['list']).stdout, /Deploys happen on Tuesdays/)
  })
})
