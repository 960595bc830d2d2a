import assert from 'node:assert/strict'
import {spawnSync} from 'node:child_process'
import {statSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {BIN, childEnv, tempHome} from '../helpers/mem.js'

/**
 * Runs mem under a pseudo-terminal (util-linux `script`), as a person at a terminal would,
 * and returns everything the terminal showed.
 */
function inTerminal(home: string, args: string[]): {code: number; screen: string} {
  const command = [process.execPath, BIN, ...args].map((w) => `'${w.replaceAll("'", "'\\''")}'`).join(' ')
  const r = spawnSync('script', ['-qec', command, '/dev/null'], {env: childEnv(home), input: '', encoding: 'utf8'})
  return {code: r.status ?? -1, screen: r.stdout}
}

describe('progress bars for long imports and exports', () => {
  let h: ReturnType<typeof tempHome>
  let file: string
  before(() => {
    h = tempHome()
    file = join(h.home, 'big.jsonl')
    const entities = Array.from({length: 2500}, (_, i) =>
      JSON.stringify({type: 'entity', name: `Thing ${i}`, entityType: 'thing', observations: [`is number ${i}`]}),
    )
    writeFileSync(file, entities.join('\n'))
  })
  after(() => h.cleanup())

  it('draws a bar with rate and ETA at a terminal, and none with --json', () => {
    const quiet = inTerminal(h.home, ['import', file, '--dry-run', '--json'])
    assert.equal(quiet.code, 0, quiet.screen)
    assert.doesNotMatch(quiet.screen, /ETA/)
    assert.equal(JSON.parse(quiet.screen.trim()).added.facts, 2500)

    const shown = inTerminal(h.home, ['import', file])
    assert.equal(shown.code, 0, shown.screen)
    // Checking reads the file once, so it counts bytes; writing counts records.
    assert.match(
      shown.screen,
      new RegExp(`Checking \\[[^\\]]*\\] 100% \\| ${statSync(file).size}/${statSync(file).size} \\| \\d+/s \\| ETA `),
    )
    assert.match(shown.screen, /Writing +\[[^\]]*\] 100% \| 2500\/2500/)
    assert.match(shown.screen, /Imported 2500 facts and 0 checkpoints/)

    const exported = inTerminal(h.home, ['export', '-o', join(h.home, 'out.jsonl')])
    assert.match(exported.screen, /Writing +\[[^\]]*\] 100% \| 2500\/2500 \| \d+\/s \| ETA /)
    assert.match(exported.screen, /Exported 2500 facts and 0 checkpoints of agent default/)
  })
})
