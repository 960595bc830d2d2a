import {appendFileSync, existsSync, mkdirSync, readFileSync} from 'node:fs'
import {homedir} from 'node:os'
import path from 'node:path'

import {contentDigest} from '../../src/meaning/content-digest.js'
import type {Embedder} from '../../src/meaning/embedder.js'

/**
 * An embedder that remembers every vector it made, on disk, by its embedder's id and the text's
 * digest: the recall sets hold tens of thousands of turns, and the in-process model takes
 * minutes to embed them, so a run after the first embeds only what changed. The cache is the
 * benchmark's own (`$XDG_CACHE_HOME/mem-bench`, else ~/.cache/mem-bench), never in the repository:
 * the vectors are derived from the sets, which are licensed for measuring only.
 */
export class CachedEmbedder implements Embedder {
  readonly id: string
  private readonly file: string
  private readonly known = new Map<string, Float32Array>()
  /** How many texts the inner embedder was asked for: what the cache did not hold. */
  made = 0

  constructor(private readonly inner: Embedder) {
    this.id = inner.id
    const dir = path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'mem-bench')
    mkdirSync(dir, {recursive: true, mode: 0o700})
    this.file = path.join(dir, `${this.id.replace(/[^\w.-]/g, '_')}.jsonl`)
    if (existsSync(this.file))
      for (const line of readFileSync(this.file, 'utf8').split('\n')) {
        if (line === '') continue
        const [digest, numbers] = JSON.parse(line) as [string, number[]]
        this.known.set(digest, Float32Array.from(numbers))
      }
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    const missing = [...new Set(texts.filter((t) => !this.known.has(contentDigest(t))))]
    if (missing.length > 0) {
      const vectors = await this.inner.embed(missing)
      this.made += missing.length
      const lines = missing.map((text, i) => {
        this.known.set(contentDigest(text), vectors[i]!)
        return JSON.stringify([contentDigest(text), Array.from(vectors[i]!, (x) => Math.round(x * 1e6) / 1e6)])
      })
      appendFileSync(this.file, `${lines.join('\n')}\n`, {mode: 0o600})
    }
    return texts.map((t) => this.known.get(contentDigest(t))!)
  }

  has(text: string): boolean {
    return this.known.has(contentDigest(text))
  }

  close(): Promise<void> {
    return this.inner.close()
  }
}
