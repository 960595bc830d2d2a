import assert from 'node:assert/strict'
import {readdirSync} from 'node:fs'
import {join} from 'node:path'

import {serveDuringSuite} from '../helpers/mcp.js'
import {mem} from '../helpers/mem.js'

/** Characters that make a tag look like another one, or like nothing, or drive a terminal. */
const REFUSED: [string, string][] = [
  ['U+202E', 'o\u202Eps'],
  ['U+202A', '\u202Aops'],
  ['U+2066', 'ops\u2066'],
  ['U+2069', 'o\u2069ps'],
  ['U+200E', 'o\u200Eps'],
  ['U+200F', 'o\u200Fps'],
  ['U+061C', 'o\u061Cps'],
  ['U+200B', 'o\u200Bps'],
  ['U+200C', 'o\u200Cps'],
  ['U+200D', 'o\u200Dps'],
  ['U+2060', 'o\u2060ps'],
  ['U+FEFF', '\uFEFFops'],
  ['U+009B', 'o\u009B2Jps'],
  ['U+0085', 'o\u0085ps'],
  ['U+001B', 'o\u001B[2Jps'],
]

describe('tags refuse invisible and control characters, on every surface', () => {
  const suite = serveDuringSuite()

  for (const [code, tag] of REFUSED) {
    it(`${code}: memory_add and mem add refuse it, naming the character, and store nothing`, async () => {
      const result = await suite.mcp.call('memory_add', {agent_id: 'tags', content: 'tagged', tags: [tag]})
      assert.equal(result.isError, true)
      const text = (result.content[0] as {text: string}).text
      assert.match(
        text,
        /a tag must not contain spaces, control characters, zero-width characters or bidirectional controls/,
      )
      assert.ok(text.includes(`(found ${code})`), text)
      const cli = mem(suite.home, ['add', 'tagged', '--tag', tag, '--agent', 'tags'])
      assert.equal(cli.code, 2, cli.stderr)
      assert.ok(cli.stderr.includes(`(found ${code})`), cli.stderr)
      assert.deepEqual(readdirSync(suite.home).includes('agents') ? readdirSync(join(suite.home, 'agents')) : [], [])
    })
  }

  it('letters of any script, digits and punctuation are still tags', async () => {
    for (const tag of ['ops', 'מבצעים', 'été', 'ci/cd', 'v1.2', '日本']) {
      const result = await suite.mcp.call('memory_add', {agent_id: 'fine', content: `tagged ${tag}`, tags: [tag]})
      assert.ok(!result.isError, JSON.stringify(result.content))
    }
  })
})
