import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {BIN, childEnv, tempHome} from '../helpers/mem.js'
import {ok} from '../transfer/helpers.js'

/** Runs `mem ARGS | reader` through a real pipe; mem's own exit status is the last line of stderr. */
function into(home: string, args: string[], reader: string): {stdout: string; stderr: string; memStatus: string} {
  const r = spawnSync(
    'bash',
    ['-c', `"$0" "$@" | ${reader}; echo "\${PIPESTATUS[0]}" >&2`, process.execPath, BIN, ...args],
    {env: childEnv(home), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024},
  )
  const stderr = r.stderr.trimEnd().split('\n')
  return {stdout: r.stdout, memStatus: stderr.pop() ?? '', stderr: stderr.join('\n')}
}

describe('a --json result larger than a pipe holds', function () {
  this.timeout(60_000)
  let home: ReturnType<typeof tempHome>
  let file: string
  before(() => {
    home = tempHome()
    // 5,000 facts in one line of the MCP memory server's format; imported again, each is listed as skipped (about 470 KB of JSON).
    const observations = Array.from({length: 5000}, (_, i) => `observation ${i} about the pipe`)
    file = join(home.home, 'big.jsonl')
    writeFileSync(file, `${JSON.stringify({type: 'entity', name: 'Big', entityType: 'bulk', observations})}\n`)
    ok(home.home, ['import', file, '--agent', 'big'])
  })
  after(() => home.cleanup())

  it('reaches a reader that starts late whole, as one line of JSON', () => {
    const r = into(home.home, ['import', file, '--agent', 'big', '--json'], '{ sleep 1; cat; }')
    assert.equal(r.memStatus, '0', r.stderr)
    assert.equal(r.stderr, '')
    const report = JSON.parse(r.stdout) as {skipped: unknown[]}
    assert.equal(report.skipped.length, 5000)
    assert.equal(r.stdout, `${JSON.stringify(report)}\n`)
  })

  it('ends quietly when the reader leaves after the first bytes', () => {
    const r = into(home.home, ['import', file, '--agent', 'big', '--json'], 'head -c 100')
    assert.equal(r.memStatus, '0', r.stderr)
    assert.equal(r.stderr, '')
    assert.equal(r.stdout.length, 100)
  })
})
