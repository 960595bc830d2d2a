import assert from 'node:assert/strict'
import {writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {mem, tempHome} from '../helpers/mem.js'
import {LIMITS} from '../../src/ops/limits.js'
import {snapshot} from './files.js'

const deepObject = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000)
const deepArray = '['.repeat(100_000) + ']'.repeat(100_000)

describe('limits through the CLI: huge and deeply nested input is refused, not a crash', function () {
  this.timeout(60_000)
  let home: ReturnType<typeof tempHome>
  before(() => {
    home = tempHome()
    assert.equal(mem(home.home, ['add', 'first', '-a', 'alice']).code, 0)
  })
  after(() => home.cleanup())

  function refused(args: string[], input: string | undefined, message: RegExp): void {
    const before = snapshot(home.home)
    const r = mem(home.home, [...args, '-a', 'alice', '--json'], {input})
    assert.equal(r.code, 2, `exit 2 (invalid input): ${r.stderr.slice(0, 300)}`)
    assert.match(r.stderr, message)
    assert.equal((JSON.parse(r.stdout) as {error: {code: string}}).error.code, 'invalid_input')
    assert.deepEqual(snapshot(home.home), before)
  }

  it('state nested 100,000 deep, from stdin and from a file', () => {
    refused(['save'], deepObject, /nested deeper than 64 levels/)
    const file = join(home.home, 'deep.json')
    writeFileSync(file, deepObject)
    refused(['save', '--state-file', file], undefined, /nested deeper than 64 levels/)
  })

  it('messages nested 100,000 deep', () => {
    const file = join(home.home, 'messages.json')
    writeFileSync(file, deepArray)
    refused(['save', '--state', '{}', '--messages-file', file], undefined, /nested deeper than 64 levels/)
  })

  it('a checkpoint over the size limit', () => {
    refused(['save'], JSON.stringify({blob: 'x'.repeat(LIMITS.checkpointBytes)}), /at most 1048576 bytes/)
  })

  it('content, tags and queries over their limits', () => {
    refused(['add'], 'x'.repeat(LIMITS.contentLength + 1), /at most 16000 characters/)
    refused(
      ['add', 'ok', ...Array.from({length: LIMITS.tagCount + 1}, (_, i) => ['-t', `t${i}`]).flat()],
      undefined,
      /at most 32 tags/,
    )
    refused(['add', 'ok', '-t', 'x'.repeat(LIMITS.tagLength + 1)], undefined, /at most 64 characters/)
    refused(['search', 'q'.repeat(LIMITS.queryLength + 1)], undefined, /at most 2000 characters/)
  })

  it('agent ids outside the allowed syntax', () => {
    for (const id of ['../x', '/etc', '.hidden', 'a'.repeat(65), 'ａｌｉｃｅ', 'a b', 'alice\u200b']) {
      const before = snapshot(home.home)
      const r = mem(home.home, ['add', 'x', '-a', id, '--json'])
      assert.equal(r.code, 2, `${JSON.stringify(id)}: ${r.stderr}`)
      assert.deepEqual(snapshot(home.home), before)
    }
  })
})
