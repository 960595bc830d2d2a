import {readFileSync} from 'node:fs'

import {describeErrno, MemError} from '../errors.js'
import {describeJsonError} from '../store/json-position.js'

/** Reads all of stdin; undefined when stdin is a terminal (nothing was piped). */
export async function readStdin(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

export function readTextFile(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why = typeof code === 'string' ? describeErrno(code) : (error as Error).message
    throw new MemError('invalid_input', `cannot read ${what} from ${path}: ${why}`)
  }
}

/**
 * Decodes JSON text given on the command line; the operation then checks its shape. `source`
 * names where the text came from as the user gave it ("--state", "the state on stdin"). Where
 * it stops being JSON is said as a line and column, never by quoting it.
 */
export function parseJsonText(text: string, source: string): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new MemError('invalid_input', `${source}: ${describeJsonError(text, (error as Error).message)}`)
  }
}

/** Positional words joined into one text, so quoting a query or a fact is optional. */
export function joinWords(words: string[]): string | undefined {
  return words.length > 0 ? words.join(' ') : undefined
}
