import {getHeapSpaceStatistics, setFlagsFromString} from 'node:v8'

/** The young generation's size past which it stops growing (see boundHeapGrowth). */
const YOUNG_CAP_BYTES = 16 * 1024 * 1024
/** How often the young generation's size is looked at until it reaches the cap. */
const LOOK_EVERY_MS = 20

/**
 * For a process whose one job is a bulk import, which allocates fast (each line parsed is
 * garbage a moment later). Both settings last for the process, which ends with the import;
 * docs/performance.md has the figures.
 *
 * - V8 lets the old generation grow to four times what was live after the last full
 *   collection before collecting again; growing by half instead kept a 200,000-fact import at
 *   about 240 MiB rather than 280 on Node 20, in about the same time. V8 reads the setting at
 *   each collection.
 * - Newer Node lets the young generation grow further when much of what it holds survives, as
 *   an import's batches do (to 128 MiB on Node 24): the same import peaked at about 255 MiB on
 *   Node 22 and 400 on Node 24. Its largest size can be set only as Node starts, but how fast
 *   it grows is read at each resize, so once it reached 16 MiB it grows no more: 220-240 MiB on
 *   each, in the same time. Kept from growing at all, it cost a fifth more time. The timer
 *   looks only when the event loop turns, so a long synchronous stretch early in the import
 *   must let it (FileStore.eachFact does).
 */
export function boundHeapGrowth(): void {
  setFlagsFromString('--heap-growing-percent=50')
  const look = setInterval(() => {
    const young = getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')
    if (young === undefined || young.space_size < YOUNG_CAP_BYTES) return
    setFlagsFromString('--semi-space-growth-factor=1')
    clearInterval(look)
  }, LOOK_EVERY_MS)
  // Never what keeps the process alive.
  look.unref()
}
