import assert from 'node:assert/strict'
import {chmodSync, cpSync, readFileSync} from 'node:fs'
import {join} from 'node:path'

import {FORMAT_VERSION} from '../../src/store/file/format.js'
import {connectMcp} from '../helpers/mcp.js'
import {mem, tempHome} from '../helpers/mem.js'
import {modeOf, modes, readBack, snapshot} from './files.js'

const V1_HOME = join(import.meta.dirname, 'fixtures', 'v1-home')
const FACTS = 'agents/alice/facts/000001.json'
const CHECKPOINTS = 'agents/alice/checkpoints/000001.json'

function envelope(
  home: string,
  file: string,
): {format: string; version: number; agent?: string; records: {id: string}[]} {
  return JSON.parse(readFileSync(join(home, file), 'utf8'))
}

describe('format migration: a home written by mem 0.1.0 (format 1)', function () {
  this.timeout(60_000)
  let home: ReturnType<typeof tempHome>
  beforeEach(() => {
    home = tempHome()
    cpSync(V1_HOME, home.home, {recursive: true})
    // As mem 0.1.0 left them: a checkout does not keep modes.
    for (const f of modes(home.home)) chmodSync(f.path, f.dir ? 0o700 : 0o600)
  })
  afterEach(() => home.cleanup())

  it('reads format 1 without writing anything', () => {
    const before = snapshot(home.home)
    const search = mem(home.home, ['search', 'deploys', '-a', 'alice', '--json'])
    assert.equal(search.code, 0, search.stderr)
    const contents = (JSON.parse(search.stdout) as {facts: {content: string}[]}).facts.map((f) => f.content)
    assert.ok(contents.includes('Deploys go out on Tuesdays and Thursdays'))
    assert.ok(!contents.includes('Deploys go out on Tuesdays'), 'the superseded fact stays out of search')
    const resume = mem(home.home, ['resume', '-a', 'alice', '--json'])
    assert.equal((JSON.parse(resume.stdout) as {state: unknown}).state !== undefined, true)
    // The saved search index under cache/ is derived data a reader may write; the data files must not move.
    const dataFiles = (tree: Record<string, string>) =>
      Object.fromEntries(Object.entries(tree).filter(([path]) => !path.includes('/cache/')))
    assert.deepEqual(dataFiles(snapshot(home.home)), dataFiles(before), 'a reader holds no lock, so it never upgrades')
  })

  it('the first write upgrades every file to the current format under the lock, keeping the old bytes as .v1.bak', async () => {
    const original = {
      facts: readFileSync(join(home.home, FACTS)),
      checkpoints: readFileSync(join(home.home, CHECKPOINTS)),
    }
    const old = await readBack(home.home, 'alice')
    const added = mem(home.home, ['add', 'a fact written by the new mem', '-a', 'alice', '--json'])
    assert.equal(added.code, 0, added.stderr)
    for (const [file, bytes] of [
      [FACTS, original.facts],
      [CHECKPOINTS, original.checkpoints],
    ] as const) {
      const upgraded = envelope(home.home, file)
      assert.equal(upgraded.version, FORMAT_VERSION)
      assert.equal(upgraded.agent, 'alice')
      assert.deepEqual(readFileSync(join(home.home, `${file}.v1.bak`)), bytes, 'the format 1 bytes are kept')
      assert.equal(modeOf(join(home.home, `${file}.v1.bak`)), 0o600)
    }
    const now = await readBack(home.home, 'alice')
    assert.deepEqual(
      now.facts.slice(0, old.facts.length),
      old.facts,
      'every record, superseded and deleted ones too, survives as it was',
    )
    assert.deepEqual(now.checkpoints, old.checkpoints)
    assert.equal(now.facts.length, old.facts.length + 1)
    assert.equal(mem(home.home, ['doctor']).code, 0)
  })

  it('a running MCP server that read format 1 first still upgrades on its first write', async () => {
    const mcp = await connectMcp(home.home, {args: ['--agent', 'alice']})
    try {
      assert.equal((await mcp.call('memory_search', {query: 'pnpm'})).isError, undefined)
      assert.equal(envelope(home.home, FACTS).version, 1)
      assert.equal((await mcp.call('checkpoint_save', {state: {step: 4}})).isError, undefined)
      assert.equal(
        envelope(home.home, FACTS).version,
        FORMAT_VERSION,
        'the facts file was upgraded though only a checkpoint was written',
      )
      assert.equal(envelope(home.home, CHECKPOINTS).version, FORMAT_VERSION)
    } finally {
      await mcp.close()
    }
  })

  it('a copy in a folder mem cannot have made is not taken for an agent', () => {
    cpSync(join(home.home, 'agents/alice'), join(home.home, 'agents/Not%zzAnAgent'), {recursive: true})
    const r = mem(home.home, ['doctor', '--json'])
    const report = JSON.parse(r.stdout) as {checked: {agents: number}}
    assert.equal(report.checked.agents, 1, 'the foreign folder is not taken for an agent')
  })
})
