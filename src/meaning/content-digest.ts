import {createHash} from 'node:crypto'

/**
 * What a vector is keyed by besides its embedder: the text it was made from, as 16 characters
 * of SHA-256 (96 bits, enough to tell one agent's facts apart). `mem doctor` tells a vector
 * made from other content than its fact's by it.
 */
export function contentDigest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('base64url').slice(0, 16)
}
