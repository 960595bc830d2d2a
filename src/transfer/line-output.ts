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
  for (const chunk of chunksOf(lines, total, onProgress)) writeAll(fd, chunk)
}

/** Lines joined into chunks of about CHUNK characters, telling `onProgress` how far it got. */
export function* chunksOf(lines: Iterable<string>, total: number, onProgress?: OnProgress): Generator<string> {
  let buffer = ''
  let n = 0
  for (const line of lines) {
    buffer += `${line}\n`
    if (buffer.length >= CHUNK) {
      yield buffer
      buffer = ''
    }
    if (++n % 500 === 0) onProgress?.('Writing', Math.min(n, total), total)
  }
  if (buffer !== '') yield buffer
  onProgress?.('Writing', total, total)
}
