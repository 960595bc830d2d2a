import {DamagedIndex} from './damaged-index.js'

/**
 * Lists of strings the index reads by position: a plain array, or {@link LineBlock}, lines of a
 * saved index read only where asked. A cold `mem search` at 100,000 facts would otherwise make
 * some 250,000 strings (ids, dates, terms) to read a dozen of them.
 */
export interface Lines {
  readonly length: number
  at(i: number): string | undefined
}

/** Lines per block of a {@link LineBlock}: its block index costs 4 bytes per this many lines. */
export const LINES_PER_BLOCK = 32

/**
 * `count` lines of UTF-8 text, one per `\n`, in `bytes`, with the byte offset of every
 * {@link LINES_PER_BLOCK}th line in `blocks`. A line is decoded with the rest of its block, on
 * first use, and kept.
 */
export class LineBlock implements Lines {
  private readonly decoded = new Map<number, string[]>()

  /** @param load makes bytes[from..to) readable, where they are read from their file on first use */
  constructor(
    private readonly bytes: Buffer,
    readonly length: number,
    private readonly blocks: Uint32Array,
    private readonly load?: (from: number, to: number) => void,
  ) {
    if (blocks.length !== Math.ceil(length / LINES_PER_BLOCK)) throw new Error('bad line block index')
    for (let b = 0; b < blocks.length; b++)
      if (blocks[b]! > bytes.length || (b > 0 && blocks[b]! <= blocks[b - 1]!)) throw new Error('bad line block index')
  }

  /** The byte offsets to save beside `lines` joined by `\n`. */
  static index(lines: readonly string[]): Uint32Array {
    const blocks = new Uint32Array(Math.ceil(lines.length / LINES_PER_BLOCK))
    let offset = 0
    for (let i = 0; i < lines.length; i++) {
      if (i % LINES_PER_BLOCK === 0) blocks[i / LINES_PER_BLOCK] = offset
      offset += Buffer.byteLength(lines[i]!, 'utf8') + 1
    }
    return blocks
  }

  at(i: number): string | undefined {
    if (!(i >= 0 && i < this.length)) return undefined
    const b = Math.floor(i / LINES_PER_BLOCK)
    let block = this.decoded.get(b)
    if (block === undefined) {
      const end = b + 1 < this.blocks.length ? this.blocks[b + 1]! - 1 : this.bytes.length
      this.load?.(this.blocks[b]!, end)
      block = this.bytes.toString('utf8', this.blocks[b]!, end).split('\n')
      const want = Math.min(LINES_PER_BLOCK, this.length - b * LINES_PER_BLOCK)
      if (block.length !== want) throw new DamagedIndex('bad line block')
      this.decoded.set(b, block)
    }
    return block[i - b * LINES_PER_BLOCK]
  }

  /** Every line, decoded at once (for a pass over all of them). */
  all(): string[] {
    if (this.length === 0) return []
    this.load?.(0, this.bytes.length)
    return this.bytes.toString('utf8').split('\n')
  }
}

/** Every line of `lines`, as an array. */
export function allLines(lines: Lines): string[] {
  if (Array.isArray(lines)) return lines as string[]
  if (lines instanceof LineBlock) return lines.all()
  return Array.from({length: lines.length}, (_, i) => lines.at(i)!)
}

/** The first position in sorted `lines` whose line is not before `word`. */
export function lowerBound(lines: Lines, word: string): number {
  let lo = 0
  let hi = lines.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (lines.at(mid)! < word) lo = mid + 1
    else hi = mid
  }
  return lo
}

/** Where `word` is in sorted `lines`, or -1. */
export function indexOfSorted(lines: Lines, word: string): number {
  const at = lowerBound(lines, word)
  return at < lines.length && lines.at(at) === word ? at : -1
}

/** The positions [from, to) of the lines of sorted `lines` that start with `prefix`. */
export function prefixRange(lines: Lines, prefix: string): [number, number] {
  const from = lowerBound(lines, prefix)
  let to = from
  while (to < lines.length && lines.at(to)!.startsWith(prefix)) to++
  return [from, to]
}
