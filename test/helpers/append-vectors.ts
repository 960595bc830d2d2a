/**
 * Appends vectors to a vector file from a process of its own, for the test of concurrent appends
 * (test/meaning/vector-file.test.ts):
 *
 *   node --import tsx test/helpers/append-vectors.ts <path> <embedder> <dimensions> <prefix> <count> <start>
 *
 * Waits until the clock reads `start` (ms since the epoch), so that two such processes append at
 * the same time whatever their start-up took; then appends `count` records one call each, ids
 * `<prefix>-<n>`, vectors of a pattern of n the reader checks; then prints how many appends failed.
 */
import {appendVectors} from '../../src/meaning/vector-file.js'

const [path, embedder, dimensions, prefix, count, start] = process.argv.slice(2)
const length = Number(dimensions)
while (Date.now() < Number(start));
let failed = 0
for (let n = 0; n < Number(count); n++) {
  const vector = Float32Array.from({length}, (_, i) => (i === 0 ? 1 : ((n + i) % 7) / 7))
  if (!appendVectors(path!, embedder!, length, [{id: `${prefix}-${n}`, digest: `d${n}`, vector}])) failed++
}
console.log(failed)
