import {lowerBound, type Lines} from './lines.js'

/**
 * A text per slot (a fact's id, its date): the loaded ones read from their {@link Lines} when
 * asked, those set since kept in an array. With `reverse`, also the slot of each text: by binary
 * search when the loaded texts are sorted (ids are, as facts are saved in id order), otherwise
 * from a map built on the first lookup. A cold search that changes nothing never needs either.
 */
export class SlotTexts {
  private readonly loadedCount: number
  /** Loaded slots cleared since, 1 each; allocated on the first. */
  private cleared?: Uint8Array
  private readonly added: (string | undefined)[] = []
  /** The slot of each text set since loading. */
  private readonly addedSlot = new Map<string, number>()
  /** The slot of each loaded text, when they are not sorted; built on the first lookup. */
  private loadedSlot?: Map<string, number>
  private count: number

  /**
   * @param reverse keep the slot of each text
   * @param sorted the loaded texts are in increasing order, each once
   * @param onRepeated called with each later slot of a text two loaded slots hold (no build
   *   writes that), once it is cleared; only for unsorted texts, when their map is built
   */
  constructor(
    private readonly loaded: Lines = [],
    private readonly reverse = false,
    private readonly sorted = false,
    private readonly onRepeated: (slot: number) => void = () => {},
  ) {
    this.loadedCount = loaded.length
    this.count = loaded.length
  }

  /** Slots in use or used: the next free slot. */
  get length(): number {
    return this.loadedCount + this.added.length
  }

  /** Slots holding a text. */
  get size(): number {
    if (this.reverse && !this.sorted) this.loadedMap()
    return this.count
  }

  get(slot: number): string | undefined {
    if (slot < this.loadedCount) return this.cleared?.[slot] === 1 ? undefined : this.loaded.at(slot)
    return this.added[slot - this.loadedCount]
  }

  /** Puts `text` in the next free slot (== length). */
  push(text: string): number {
    const slot = this.length
    this.added.push(text)
    this.count++
    if (this.reverse) this.addedSlot.set(text, slot)
    return slot
  }

  clear(slot: number): void {
    const text = this.get(slot)
    if (text === undefined) return
    if (slot < this.loadedCount) {
      if (this.reverse && !this.sorted) this.loadedMap()
      ;(this.cleared ??= new Uint8Array(this.loadedCount))[slot] = 1
      if (this.loadedSlot?.get(text) === slot) this.loadedSlot.delete(text)
    } else {
      this.added[slot - this.loadedCount] = undefined
      if (this.addedSlot.get(text) === slot) this.addedSlot.delete(text)
    }
    this.count--
  }

  /** The slot holding `text` (only with `reverse`). */
  find(text: string): number | undefined {
    if (!this.reverse) throw new Error('this list keeps no slots by text')
    const added = this.addedSlot.get(text)
    if (added !== undefined) return added
    if (!this.sorted) return this.loadedMap().get(text)
    const at = lowerBound(this.loaded, text)
    return at < this.loadedCount && this.cleared?.[at] !== 1 && this.loaded.at(at) === text ? at : undefined
  }

  /** Each loaded text to its slot. A text held by two slots keeps the first: the later is cleared, so the index counts the fact once. */
  private loadedMap(): Map<string, number> {
    if (!this.loadedSlot) {
      const map = new Map<string, number>()
      const repeated: number[] = []
      for (let slot = 0; slot < this.loadedCount; slot++) {
        const text = this.get(slot)
        if (text === undefined) continue
        if (map.has(text)) repeated.push(slot)
        else map.set(text, slot)
      }
      this.loadedSlot = map
      for (const slot of repeated) {
        ;(this.cleared ??= new Uint8Array(this.loadedCount))[slot] = 1
        this.count--
        this.onRepeated(slot)
      }
    }
    return this.loadedSlot
  }
}

/** Whether `texts` are in increasing order, each once. */
export function strictlySorted(texts: readonly string[]): boolean {
  for (let i = 1; i < texts.length; i++) if (!(texts[i - 1]! < texts[i]!)) return false
  return true
}
