import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {connectMcp} from '../helpers/mcp.js'
import {BIN, childEnv, tempHome} from '../helpers/mem.js'
import {lines, ok} from './helpers.js'

/** Runs `mem export ARGS | reader` through a real shell pipe. */
function exportInto(
  home: string,
  args: string[],
  reader: string,
): {status: number | null; stdout: string; stderr: string} {
  return spawnSync('sh', ['-c', `"$0" "$@" | ${reader}`, process.execPath, BIN, 'export', ...args], {
    env: childEnv(home),
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
}

describe('mem export to stdout', () => {
  let home: ReturnType<typeof tempHome>

  before(() => {
    home = tempHome()
  })
  after(() => home.cleanup())

  it('a reader slower than the export gets every line and no listener warning is printed', () => {
    // About 5 MB: twenty times the export's write chunk, so it waits for the reader many times.
    const observations = Array.from({length: 5000}, (_, i) => `observation ${i} ${'x'.repeat(1000)}`)
    const file = join(home.home, 'big.jsonl')
    writeFileSync(file, `${JSON.stringify({type: 'entity', name: 'Big', entityType: 'bulk', observations})}\n`)
    ok(home.home, ['import', file, '--agent', 'big'])
    const r = exportInto(home.home, ['--agent', 'big'], 'while IFS= read -r line; do printf "%s\\n" "$line"; done')
    assert.equal(r.status, 0, r.stderr)
    assert.doesNotMatch(r.stderr, /MaxListenersExceededWarning/)
    assert.equal(r.stderr, '')
    assert.equal(lines(r.stdout).length, 5001)
  })

  it('half a surrogate pair stored through MCP is exported as U+FFFD, so jq reads the export', async () => {
    const mcp = await connectMcp(home.home)
    try {
      for (const content of ['half \uD83D of an emoji', 'a lone \uDC00 low half', 'a whole 😀 emoji']) {
        const result = await mcp.call('memory_add', {agent_id: 'halves', content})
        assert.ok(!result.isError, JSON.stringify(result.content))
      }
      const saved = await mcp.call('checkpoint_save', {
        agent_id: 'halves',
        label: 'label \uD83D',
        state: {'key \uD83D': 'value \uDBFF'},
      })
      assert.ok(!saved.isError, JSON.stringify(saved.content))
    } finally {
      await mcp.close()
    }
    const r = exportInto(home.home, ['--agent', 'halves'], 'jq -c .')
    assert.equal(r.status, 0, `jq reads the export: ${r.stderr}`)
    assert.equal(r.stderr, '')
    const out = lines(r.stdout)
    assert.deepEqual(
      out.filter((l) => l.type === 'fact').map((l) => l.content),
      ['half \uFFFD of an emoji', 'a lone \uFFFD low half', 'a whole 😀 emoji'],
    )
    const checkpoint = out.find((l) => l.type === 'checkpoint')!
    assert.equal(checkpoint.label, 'label \uFFFD')
    assert.deepEqual(checkpoint.state, {'key \uFFFD': 'value \uFFFD'})
    // The store keeps what was stored: only the export replaces the halves.
    const stored = JSON.parse(ok(home.home, ['list', '--agent', 'halves', '--json']).stdout) as {
      facts: {content: string}[]
    }
    assert.ok(stored.facts.some((f) => f.content === 'half \uD83D of an emoji'))
  })
})
