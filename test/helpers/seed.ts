import {randomInt} from 'node:crypto'

import {rng} from '../../bench/speed/facts.js'

/**
 * The seed behind a randomized test's choices (which writer to kill, how long to wait): a new one
 * each run, so that runs explore, or `MEM_TEST_SEED` to replay one. `seeded` prints the seed when a
 * test under it fails, with the command that reruns it with the same choices (the timing of real
 * processes still varies, so a replay repeats the choices, not every interleaving):
 *
 *     MEM_TEST_SEED=<seed> npx mocha <file>
 */
export function testSeed(): number {
  const given = process.env.MEM_TEST_SEED
  if (given === undefined || given === '') return randomInt(1, 2 ** 31)
  const seed = Number(given)
  if (!Number.isSafeInteger(seed)) throw new Error(`MEM_TEST_SEED must be a whole number, not ${JSON.stringify(given)}`)
  return seed
}

/** A small, fast generator of numbers in [0, 1) from a seed (mulberry32), the same on every machine. */
export const seededRandom = rng

/**
 * Call inside a `describe`: draws the suite's seed, and after any failing test in it prints the
 * seed and the command that replays it. Returns the suite's generator.
 */
export function seeded(file: string): {seed: number; random: () => number} {
  const seed = testSeed()
  afterEach(function () {
    if (this.currentTest?.state === 'failed') {
      process.stderr.write(
        `      seed ${seed}; to rerun with the same choices: MEM_TEST_SEED=${seed} npx mocha ${file}\n`,
      )
    }
  })
  return {seed, random: seededRandom(seed)}
}
