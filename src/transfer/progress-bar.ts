import cliProgress from 'cli-progress'

import type {OnProgress} from './progress.js'

/** Below this many items a bar would only flicker (for work as quick per item as an import's). */
const MIN_TOTAL = 1000

/**
 * A progress bar on stderr with rate and ETA, drawn only for a person at a terminal:
 * nothing when stderr is piped or the output is --json. One bar per phase.
 */
export function progressBar(enabled: boolean, minTotal = MIN_TOTAL): {onProgress: OnProgress; stop: () => void} {
  if (!enabled || !process.stderr.isTTY) return {onProgress: () => {}, stop: () => {}}
  let bar: cliProgress.SingleBar | undefined
  let phase = ''
  let started = 0
  const stop = (): void => {
    bar?.stop()
    bar = undefined
  }
  const onProgress: OnProgress = (name, done, total) => {
    if (total < minTotal) return
    if (name !== phase) {
      stop()
      phase = name
      started = Date.now()
      bar = new cliProgress.SingleBar(
        {
          stream: process.stderr,
          format: `${name.padEnd(8)} [{bar}] {percentage}% | {value}/{total} | {rate}/s | ETA {eta_formatted}`,
          hideCursor: true,
          clearOnComplete: false,
          etaBuffer: 50,
        },
        cliProgress.Presets.shades_classic,
      )
      bar.start(total, 0, {rate: 0})
    }
    const seconds = (Date.now() - started) / 1000
    bar?.update(done, {rate: seconds > 0 ? Math.round(done / seconds) : 0})
  }
  return {onProgress, stop}
}
