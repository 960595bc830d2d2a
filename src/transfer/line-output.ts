import {closeSync, fsyncSync, openSync, renameSync, writeSync} from 'node:fs'
import {basename, dirname, join} from 'node:path'

import {FILE_MODE, fsyncDir, removeQuietly} from '../store/durable-file.js'
import type {OnProgress} from './progress.js'

const CHUNK = 256 * 1024

/**
 * Writes lines to a file the way a half-written export can never be mistaken for a whole
 * one: into a temporary file beside it, then renamed over. A new file is private (0600).
 */
export function writeLinesToFile(path: string, lines: Iterable<string>, total: number, onProgress?: OnProgress): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`)
  const fd = openSync(tmp, 'w', FILE_MODE)
  try {
    try {
      let buffer = ''
      let n = 0
      for (const line of lines) {
        buffer += `${line}\n`
        if (buffer.length >= CHUNK) {
          writeSync(fd, buffer)
          buffer = ''
        }
        if (++n % 500 === 0) onProgress?.('Writing', Math.min(n, total), total)
      }
      writeSync(fd, buffer)
      fsyncSync(fd)
      onProgress?.('Writing', total, total)
    } finally {
      closeSync(fd)
    }
    renameSync(tmp, path)
  } catch (error) {
    removeQuietly(tmp)
    throw error
  }
  fsyncDir(dirname(path))
}

/** Writes lines to stdout, waiting when the reader is slower; a reader that goes away (| head) ends it quietly. */
export async function writeLinesToStdout(lines: Iterable<string>, total: number, onProgress?: OnProgress): Promise<void> {
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
    if (!ok) await new Promise<void>((resolve) => {
      out.once('drain', resolve)
      out.once('error', () => resolve())
    })
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
