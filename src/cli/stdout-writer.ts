import {chunksOf} from '../transfer/line-output.js'
import type {OnProgress} from '../transfer/progress.js'

/** Writes lines to stdout in chunks (what `mem export` writes there), telling `onProgress` how far it got. */
export function writeLinesToStdout(lines: Iterable<string>, total: number, onProgress?: OnProgress): Promise<void> {
  return writeToStdout(chunksOf(lines, total, onProgress))
}

/**
 * Writes text to stdout a piece at a time, waiting whenever the reader is slower: stdout on a
 * pipe is not blocking, so writing on regardless queues every piece in memory until the reader
 * catches up. A reader that goes away (`| head`) ends it quietly.
 */
export async function writeToStdout(pieces: Iterable<string>): Promise<void> {
  const out = process.stdout
  let closed = false
  const onError = (error: NodeJS.ErrnoException): void => {
    if (error.code === 'EPIPE') closed = true
    else throw error
  }
  out.on('error', onError)
  try {
    for (const piece of pieces) {
      if (closed) return
      if (!out.write(piece)) await drained(out)
    }
  } finally {
    out.off('error', onError)
  }
}

/** Waits for a stream to drain or fail, leaving no listener behind (a slow reader makes many waits). */
function drained(out: NodeJS.WritableStream): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      out.off('drain', done)
      out.off('error', done)
      resolve()
    }
    out.once('drain', done)
    out.once('error', done)
  })
}
