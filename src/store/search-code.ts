import type {FactIndex as FactIndexClass} from '../search/fact-index.js'

/**
 * Which ranking code wrote an index: the build puts a hash of the search sources and of the
 * libraries they use here. Without it (running from sources), nothing is saved or loaded,
 * because an index saved by other code could tokenize differently.
 */
declare const MEM_SEARCH_SIGNATURE: string | undefined
/**
 * The build's hash, and the version of the ICU data Node runs with: Thai, Lao, Khmer and Burmese
 * are split into words by Intl.Segmenter's dictionary (src/search/unspaced.ts), which another
 * Node may cut differently, so an index saved under one is rebuilt under another.
 */
export const SIGNATURE: string | undefined =
  typeof MEM_SEARCH_SIGNATURE === 'string' ? `${MEM_SEARCH_SIGNATURE}.icu${process.versions.icu ?? '-'}` : undefined

export type FactIndexType = typeof FactIndexClass

/** The search code, loaded on first search only, so that writes (mem add) never pay for it. */
export async function loadFactIndex(): Promise<FactIndexType> {
  return (await import('../search/fact-index.js')).FactIndex
}
