import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {mkdirSync} from 'node:fs'
import {join} from 'node:path'

import {connectMcp} from '../helpers/mcp.js'
import {BIN, childEnv, tempHome} from '../helpers/mem.js'
import {withLock} from '../../src/store/file/lock.js'
import {modeOf, modes} from './files.js'

/** Runs `fn` (which starts child processes) under umask 000, as a permissive MCP client might. */
async function underUmask<T>(mask: number, fn: () => Promise<T>): Promise<T> {
  const previous = process.umask(mask)
  try {
    return await fn()
  } finally {
    process.umask(previous)
  }
}

function assertPrivate(root: string): void {
  const found = modes(root)
  assert.ok(
    found.some((f) => f.path.endsWith('.jsonl')),
    'the check covers the journals',
  )
  assert.ok(
    found.some((f) => f.path.endsWith('revision.json')),
    'the check covers revision.json',
  )
  for (const f of found) assert.equal(f.mode, f.dir ? 0o700 : 0o600, `${f.path} has mode 0${f.mode.toString(8)}`)
}

describe('private by default: folders 0700, files 0600, even under umask 000', function () {
  this.timeout(60_000)

  it('an MCP server started with umask 000 creates only private folders and files', async () => {
    const {home, cleanup} = tempHome()
    const memHome = join(home, 'nested', 'mem')
    try {
      const mcp = await underUmask(0, () => connectMcp(memHome, {args: ['--agent', 'alice']}))
      try {
        const first = await mcp.call('memory_add', {content: 'one'})
        await mcp.call('memory_add', {content: 'two'})
        await mcp.call('memory_reflect', {
          action: 'update',
          fact_id: (first.structuredContent as {fact_id: string}).fact_id,
          content: 'one, changed',
        })
        await mcp.call('checkpoint_save', {state: {a: 1}})
        await mcp.call('checkpoint_save', {state: {a: 2}})
      } finally {
        await mcp.close()
      }
      assertPrivate(memHome)
    } finally {
      cleanup()
    }
  })

  it('the lock file is private too', async () => {
    const {home, cleanup} = tempHome()
    const previous = process.umask(0)
    try {
      const dir = join(home, 'agents', 'alice')
      mkdirSync(dir, {recursive: true, mode: 0o700})
      await withLock(dir, () => assert.equal(modeOf(join(dir, 'write.lock')), 0o600))
    } finally {
      process.umask(previous)
      cleanup()
    }
  })

  it('the CLI under umask 000 does the same', async () => {
    const {home, cleanup} = tempHome()
    const memHome = join(home, 'nested', 'mem')
    try {
      await underUmask(0, async () => {
        for (const args of [
          ['add', 'one'],
          ['add', 'two'],
          ['save', '--state', '{"a":1}'],
          ['save', '--state', '{"a":2}'],
        ]) {
          const r = spawnSync(process.execPath, [BIN, ...args], {env: childEnv(memHome), encoding: 'utf8'})
          assert.equal(r.status, 0, r.stderr)
        }
      })
      assertPrivate(memHome)
    } finally {
      cleanup()
    }
  })
})
