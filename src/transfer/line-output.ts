import {writeSync} from 'node:fs'

import type {OnProgress} from './progress.js'

const CHUNK = 256 * 1024

/** Writes all of `text`: a write to a pipe or a device may take only part of it. */
function writeAll(fd: number, text: string): void {
  const bytes = Buffer.from(text, 'utf8')
  for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at)
}

/** Writes lines to an open file, FIFO or device, in chunks, telling `onProgress` how far it got. */
export function writeLinesToFd(fd: number, lines: Iterable<string>, total: number, onProgress?: OnProgress): void {
  let buffer = ''
  let n = 0
  for (const line of lines) {
    buffer += `${line}\n`
    if (buffer.length >= CHUNK) {
      writeAll(fd, buffer)
      buffer = ''
    }
    if (++n % 500 === 0) onProgress?.('Writing', Math.min(n, total), total)
  }
  writeAll(fd, buffer)
  onProgress?.('Writing', total, total)
}

/** Writes lines to stdout, waiting when the reader is slower; a reader that goes away (| head) ends it quietly. */
export async function writeLinesToStdout(
  lines: Iterable<string>,
  total: number,
  onProgress?: OnProgress,
): Promise<void> {
  const out = process.stdout
  let closed = false
  out.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') closed = true
    else throw error
  })
  let buffer = ''
  let n = 0
  const flush = async (): Promise<void> => {
    if (buffer === '' || closed) return
    const ok = out.write(buffer)
    buffer = ''
    if (!ok) await drained(out)
  }
  for (const line of lines) {
    if (closed) return
    buffer += `${line}\n`
    if (buffer.length >= CHUNK) await flush()
    if (++n % 500 === 0) onProgress?.('Writing', Math.min(n, total), total)
  }
  await flush()
  onProgress?.('Writing', total, total)
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
