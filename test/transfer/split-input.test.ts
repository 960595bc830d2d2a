import assert from 'node:assert/strict'

import fc from 'fast-check'

import {splitArrayItems, splitLines, type Piece} from '../../src/transfer/split-input.js'

/** The bytes cut into chunks at the given places, as a file or a pipe may hand them over. */
async function* chunked(bytes: Buffer, cuts: number[]): AsyncGenerator<Buffer> {
  let at = 0
  for (const cut of [...new Set(cuts)].sort((a, b) => a - b)) {
    if (cut <= at || cut >= bytes.length) continue
    yield bytes.subarray(at, cut)
    at = cut
  }
  yield bytes.subarray(at)
}

async function collect(pieces: AsyncGenerator<Piece>): Promise<(string | 'too long')[]> {
  const out: (string | 'too long')[] = []
  for await (const p of pieces) out.push(p.tooLong ? 'too long' : p.bytes.toString('utf8'))
  return out
}

const value = fc.jsonValue({maxDepth: 3}).map((v) => JSON.stringify(v))

describe('cutting an import into lines and conversations', () => {
  it('gives the same lines however the bytes are chunked, and a too-long line once, without the lines after it', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(value, {maxLength: 8}), fc.array(fc.nat(400)), async (items, cuts) => {
        const text = items.join('\n')
        const bytes = Buffer.from(text)
        const limit = 40
        const expected = text === '' ? [] : items.map((l) => (Buffer.byteLength(l) > limit ? 'too long' : l))
        assert.deepEqual(await collect(splitLines(chunked(bytes, cuts), limit)), expected)
      }),
    )
  })

  it('gives each item of a JSON array, whatever its strings hold, however the bytes are chunked', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(value, {maxLength: 8}), fc.array(fc.nat(400)), async (items, cuts) => {
        const bytes = Buffer.from(` [ ${items.join(' ,\n')} ] \n`)
        const limit = 60
        // The limit counts the white space between an item and its comma (one space here).
        const expected = items.map((v) => (Buffer.byteLength(v) + 1 > limit ? 'too long' : v))
        const got = await collect(splitArrayItems(chunked(bytes, cuts), limit))
        assert.deepEqual(got, expected)
        for (const item of got) if (item !== 'too long') JSON.parse(item)
      }),
    )
  })

  it('refuses an array that is not closed, or followed by more', async () => {
    await assert.rejects(
      collect(splitArrayItems(chunked(Buffer.from('[{"a": "]"}'), []), 100)),
      /ends before the array is closed/,
    )
    await assert.rejects(collect(splitArrayItems(chunked(Buffer.from('[1] 2'), []), 100)), /unexpected "2" at byte 5/)
    await assert.rejects(collect(splitArrayItems(chunked(Buffer.from('[1,]'), []), 100)), /unexpected "]"/)
  })
})
