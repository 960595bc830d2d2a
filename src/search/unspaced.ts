/**
 * Words of scripts written without spaces between them: Chinese and Japanese (Han, Hiragana,
 * Katakana), Thai, Lao, Khmer and Myanmar. Splitting on spaces and punctuation leaves a whole
 * sentence as one word there, so a search for 東京 could not find "東京のオフィスは3階にあります".
 * See docs/search.md, "Scripts written without spaces".
 */

/** Whether a text may hold such a script: a plain range test, so text without any costs one scan and nothing else. */
const MAYBE =
  /[\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u19e0-\u19ff\u3005-\u3007\u3021-\u3029\u3031-\u3035\u3038-\u303c\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\ua9e0-\ua9ff\uaa60-\uaa7f\uf900-\ufaff\uff66-\uff9f\u{16fe0}-\u{16fff}\u{1b000}-\u{1b16f}\u{20000}-\u{323af}]/u

/** A letter, mark or digit (the lookahead) of Han or Kana, prolonged-sound and iteration marks included (their Script_Extensions). */
const CJ = '(?=[\\p{L}\\p{M}\\p{N}])[\\p{scx=Han}\\p{scx=Hiragana}\\p{scx=Katakana}]'
/** The same for the scripts Intl.Segmenter splits with a dictionary (ICU's Thai, Lao, Khmer and Burmese). */
const SEGMENTED = '(?=[\\p{L}\\p{M}\\p{N}])[\\p{scx=Thai}\\p{scx=Lao}\\p{scx=Khmer}\\p{scx=Myanmar}]'
const RUNS = new RegExp(`((?:${CJ})+)|((?:${SEGMENTED})+)`, 'gu')
const HAN = /\p{Script=Han}/u

/**
 * Which side of a search a text is on. A fact's Han characters are also indexed one by one, so
 * that a query of one ideograph (猫, 楼) finds the facts that hold it; a query's runs give their
 * bigrams only, or the character itself when the run is one character long.
 */
export type Side = 'index' | 'query'

/**
 * Splits `text` into its runs of these scripts, turned into words here, and the text between
 * them, which `spaced` splits as every other script is. Text with none of them goes to `spaced`
 * whole.
 */
export function splitUnspaced(text: string, side: Side, spaced: (text: string) => string[]): string[] {
  if (!MAYBE.test(text)) return spaced(text)
  const words: string[] = []
  let at = 0
  for (const m of text.matchAll(RUNS)) {
    if (m.index > at) words.push(...spaced(text.slice(at, m.index)))
    if (m[1] !== undefined) bigrams(m[1].normalize('NFKC'), side, words)
    else segment(m[2]!.normalize('NFC'), words)
    at = m.index + m[0].length
  }
  if (at === 0) return spaced(text)
  if (at < text.length) words.push(...spaced(text.slice(at)))
  return words
}

/** Whether a word came from one of these scripts: it is matched as it is, with no stopword list, stemming or typo. */
export function isUnspaced(word: string): boolean {
  return word.charCodeAt(0) >= 0x0e00 && MAYBE.test(word) && RUNS_START.test(word)
}
const RUNS_START = new RegExp(`^(?:${CJ}|${SEGMENTED})`, 'u')

/**
 * Han and Kana runs as overlapping pairs of characters ("東京都" → 東京, 京都), the usual way
 * of indexing Chinese and Japanese without a dictionary: a query matches a fact holding its
 * characters in that order whatever words a segmenter would cut around them (ICU's cuts
 * "東京タワー" as one word, so a word index would miss it for 東京), and the pairs are the
 * same in every Node version.
 */
function bigrams(run: string, side: Side, words: string[]): void {
  const chars = Array.from(run)
  if (chars.length === 1) {
    words.push(run)
    return
  }
  for (let i = 0; i + 1 < chars.length; i++) words.push(chars[i]! + chars[i + 1]!)
  if (side === 'index') for (const c of chars) if (HAN.test(c)) words.push(c)
}

let segmenter: Intl.Segmenter | null | undefined

/** Node's word segmenter; null in a Node built without Intl, where such a run stays one word, as before. */
function wordSegmenter(): Intl.Segmenter | null {
  if (segmenter === undefined)
    segmenter = typeof Intl === 'object' && 'Segmenter' in Intl ? new Intl.Segmenter('en', {granularity: 'word'}) : null
  return segmenter
}

/** Thai, Lao, Khmer and Burmese runs as the words of ICU's dictionary (the locale does not change its cuts). */
function segment(run: string, words: string[]): void {
  const cutter = wordSegmenter()
  if (cutter === null) {
    words.push(run)
    return
  }
  for (const s of cutter.segment(run)) if (s.isWordLike) words.push(s.segment)
}

/**
 * Where `terms` (a query's terms) stand in the runs of these scripts in `text`, as [start, end)
 * offsets, for the terminal to highlight: the two characters of each matching pair, a matching
 * single ideograph, a matching Thai word. The rest of `text` is left to the caller.
 */
export function unspacedMatches(text: string, terms: ReadonlySet<string>): [number, number][] {
  const found: [number, number][] = []
  if (!MAYBE.test(text)) return found
  for (const m of text.matchAll(RUNS)) {
    if (m[1] !== undefined) {
      const starts: number[] = []
      const chars: string[] = []
      let at = m.index
      for (const c of m[1]) {
        starts.push(at)
        chars.push(c.normalize('NFKC'))
        at += c.length
      }
      starts.push(at)
      for (let i = 0; i < chars.length; i++) {
        if (terms.has(chars[i]!)) found.push([starts[i]!, starts[i + 1]!])
        if (i + 1 < chars.length && terms.has(chars[i]! + chars[i + 1]!)) found.push([starts[i]!, starts[i + 2]!])
      }
    } else if (m[2] === m[2]!.normalize('NFC')) {
      for (const s of wordSegmenter()?.segment(m[2]!) ?? [])
        if (s.isWordLike && terms.has(s.segment)) found.push([m.index + s.index, m.index + s.index + s.segment.length])
    }
  }
  return found
}

/** Where the runs of these scripts stand in `text`, as [start, end) offsets. */
export function unspacedRuns(text: string): [number, number][] {
  if (!MAYBE.test(text)) return []
  return [...text.matchAll(RUNS)].map((m) => [m.index, m.index + m[0].length])
}
