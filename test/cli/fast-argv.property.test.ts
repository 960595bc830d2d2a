import assert from 'node:assert/strict'

import {Parser, type Interfaces} from '@oclif/core'
import fc from 'fast-check'

import {parseFastArgv} from '../../src/cli/fast-argv.js'
import {jsonFlag, type CommandSpec, type FlagSpecs} from '../../src/cli/flag-spec.js'
import {wordsOf} from '../../src/cli/oclif-flags.js'
import {addSpec} from '../../src/cli/specs/add.js'
import {listSpec} from '../../src/cli/specs/list.js'
import {resumeSpec} from '../../src/cli/specs/resume.js'
import {searchSpec} from '../../src/cli/specs/search.js'
import Add from '../../src/commands/add.js'
import List from '../../src/commands/list.js'
import Resume from '../../src/commands/resume.js'
import Search from '../../src/commands/search.js'

/** Words, values and near-misses: repeats matter (oclif reorders repeated words), as do leading dashes. */
const plain = fc.constantFrom(
  'foo',
  'the',
  'deploy',
  'ops',
  'a=b',
  '',
  '5',
  '0',
  '-3',
  '10',
  '1.5',
  '12abc',
  'last week',
  '2026-01-01',
  '-',
  '-5',
  '-x',
  '--',
)

function tokens(spec: CommandSpec): fc.Arbitrary<string> {
  const specs: FlagSpecs = {...jsonFlag, ...spec.flags}
  const names = Object.keys(specs)
  const chars = Object.values(specs).flatMap((f) => (f.char ? [f.char] : []))
  return fc.oneof(
    {arbitrary: plain, weight: 5},
    {arbitrary: fc.constantFrom(...names).map((n) => `--${n}`), weight: 4},
    {arbitrary: fc.tuple(fc.constantFrom(...names), plain).map(([n, v]) => `--${n}=${v}`), weight: 2},
    {arbitrary: fc.constantFrom(...chars).map((c) => `-${c}`), weight: 2},
    {
      arbitrary: fc
        .tuple(fc.constantFrom(...chars), fc.constantFrom(...chars, '5', '=5', 'x'))
        .map(([c, rest]) => `-${c}${rest}`),
      weight: 1,
    },
    {
      arbitrary: fc.constantFrom(
        '-h',
        '--help',
        '--version',
        '--no-json',
        '--json=true',
        '--lim',
        '--agents',
        '--unknown',
        '-z',
        '--limit=',
        '--tag=',
      ),
      weight: 1,
    },
    {arbitrary: fc.string({maxLength: 6}), weight: 1},
  )
}

/** What oclif's parser makes of argv with the command class's own flags, or undefined when it rejects it. */
async function oclifParse(
  command: {baseFlags: Interfaces.FlagInput; flags: Interfaces.FlagInput; strict: boolean},
  argv: string[],
) {
  try {
    const out = await Parser.parse(argv, {
      flags: {...command.baseFlags, ...command.flags},
      args: {},
      strict: command.strict,
    })
    return {words: wordsOf(out.raw), argv: out.argv as string[], flags: out.flags as Record<string, unknown>}
  } catch {
    return undefined
  }
}

describe('the fast-path argv parser agrees with oclif', () => {
  const commands = [
    ['search', searchSpec, Search],
    ['add', addSpec, Add],
    ['list', listSpec, List],
    ['resume', resumeSpec, Resume],
  ] as const
  for (const [name, spec, command] of commands) {
    it(`mem ${name}: whenever it accepts, oclif gives the same words and flags; whenever oclif rejects, it declines`, async () => {
      let accepted = 0
      let rejectedByOclif = 0
      await fc.assert(
        fc.asyncProperty(fc.array(tokens(spec as CommandSpec), {maxLength: 8}), async (argv) => {
          const fast = parseFastArgv({...jsonFlag, ...spec.flags}, argv, spec.words)
          const oclif = await oclifParse(command, argv)
          if (!oclif) rejectedByOclif++
          if (!fast) return
          accepted++
          assert.ok(oclif, `oclif rejects what the fast path accepted: ${JSON.stringify(argv)}`)
          assert.deepEqual(fast, {words: oclif.words, flags: oclif.flags}, JSON.stringify(argv))
          // oclif's own argv holds the same words, only sorted by first appearance.
          assert.deepEqual([...fast.words].sort(), [...oclif.argv].sort(), JSON.stringify(argv))
        }),
        {numRuns: 3000},
      )
      // Both outcomes were exercised, so neither half of the property held vacuously.
      assert.ok(accepted > 300, `the fast path accepted only ${accepted} of 3000`)
      assert.ok(rejectedByOclif > 300, `oclif rejected only ${rejectedByOclif} of 3000`)
    })
  }

  it('declines what it does not handle, so oclif answers', () => {
    const specs = {...jsonFlag, ...searchSpec.flags}
    assert.equal(parseFastArgv({...jsonFlag, ...listSpec.flags}, ['--all', 'stray'], listSpec.words), undefined)
    for (const argv of [
      ['--help'],
      ['-h'],
      ['foo', '--version'],
      ['--', 'foo'],
      ['-na', 'x'],
      ['-n5'],
      ['--json', '--json'],
      ['--limit', '1', '--limit', '2'],
      ['--limit'],
      ['--limit', 'ten'],
      ['--no-json'],
      ['--since', '-3'],
      ['--json=true'],
      ['-5'],
    ]) {
      assert.equal(parseFastArgv(specs, argv), undefined, JSON.stringify(argv))
    }
  })

  it('reads the grammar it does handle, defaults included', () => {
    const specs = {...jsonFlag, ...searchSpec.flags}
    assert.deepEqual(parseFastArgv(specs, []), {words: [], flags: {limit: 10}})
    assert.deepEqual(
      parseFastArgv(specs, ['deploy', 'steps', '-n', '3', '--tag=ops', '-t', 'ci', '--json', '--agent', 'alice']),
      {
        words: ['deploy', 'steps'],
        flags: {limit: 3, tag: ['ops', 'ci'], json: true, agent: 'alice'},
      },
    )
    // A repeatable flag takes one value per use: the words after its value are words.
    assert.deepEqual(parseFastArgv(specs, ['--tag', 'a', 'b', '--json', 'c', '--tag', 'd', '--limit', '2', 'query']), {
      words: ['b', 'c', 'query'],
      flags: {tag: ['a', 'd'], json: true, limit: 2},
    })
  })
})
