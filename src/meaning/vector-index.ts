/**
 * The vectors of one agent's live facts, in memory, and the nearest of them to a query by cosine
 * similarity (docs/search.md, "Meaning (optional)"). It holds no texts and does no I/O: whoever keeps it feeds
 * it the vectors an embedder made (or read back from cache/vectors.bin, src/meaning/vector-file.ts).
 *
 * Each vector is kept in two forms, chosen by measurement (bench/vector-index.ts):
 *
 * - int8 components with one float32 scale ({@link quantize}): a quarter of float32's memory, and a
 *   cosine good to about 0.001, so it is the score a search sees;
 * - one sign bit per component, taken after subtracting the mean of the stored vectors: sentence
 *   embeddings share a large common direction, and bits taken without removing it are nearly the
 *   same for every vector. The Hamming distance between the bits of the query and of a vector
 *   (XOR and a bit count, 16 words at 512 dimensions) tracks the angle between them well enough to
 *   pick candidates, at a small fraction of the cost of a dot product over all components.
 *
 * A search with more vectors than {@link SearchOptions.candidates} (about 20 times k, 1000 for
 * k = 50) picks that many candidates by Hamming distance and scores only them with the int8 dot
 * product. Past ten times as many vectors, it first compares the first 128 bits of every vector
 * (a quarter of the work at 512 dimensions) to keep a pool of ten times the candidates, and counts
 * the full distance for that pool only. At 100,000 vectors that is about 4 ms where brute force
 * takes over 80, for a recall@50 around 0.98 of exact float cosine on clustered data. A smaller
 * index is scored whole. The slots stay dense: a removal moves the last vector into the freed
 * slot, so a scan never steps over dead ones and removals never slow searches.
 */

/** A vector as stored: int8 components and the scale that makes them a unit vector (value = component × scale). */
export interface QuantizedVector {
  values: Int8Array
  scale: number
}

/** One hit: a fact id and the cosine similarity of its vector to the query (estimated to about 0.001). */
export interface Neighbour {
  id: string
  similarity: number
}

/** How a search trades time for recall; the defaults hold recall@50 ≥ 0.95 at 100,000 vectors. */
export interface SearchOptions {
  /** Vectors scored exactly per search at least: up to this many, the whole index is scored. */
  candidates: number
  /** Candidates per hit asked for, when that is more than {@link candidates}. */
  oversample: number
  /** The pool the first pass keeps, in candidates: the full Hamming distance is counted for it only. */
  prefilter: number
}

const DEFAULTS: SearchOptions = {candidates: 1000, oversample: 20, prefilter: 10}
/** Words of sign bits (32 dimensions each) the first pass of a search compares. */
const PREFIX_WORDS = 4
/** The fewest changes (adds and removals) after which the mean is retaken. */
const RECENTRE_MIN = 64
const INITIAL_CAPACITY = 64

/**
 * `vector` as int8 components and a scale, the largest component as ±127, the scale chosen so that
 * the quantized vector has length 1 (a cosine is then a dot product). Throws on a component that is
 * not a finite number. A zero vector gives scale 0: it is similar to nothing.
 */
export function quantize(vector: Float32Array): QuantizedVector {
  let max = 0
  for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(vector[i]!))
  if (!Number.isFinite(max)) {
    const at = vector.findIndex((x) => !Number.isFinite(x))
    throw new Error(`component ${at} of the vector is ${vector[at]}, not a finite number`)
  }
  const values = new Int8Array(vector.length)
  if (max === 0) return {values, scale: 0}
  const factor = 127 / max
  let squares = 0
  for (let i = 0; i < vector.length; i++) {
    // Rounds to the nearest integer in [-127, 127] with integer operations: Math.round is several
    // times slower, and this loop is most of the cost of adding a vector.
    const q = ((vector[i]! * factor + 128.5) | 0) - 128
    values[i] = q
    squares += q * q
  }
  return {values, scale: 1 / Math.sqrt(squares)}
}

/** The float vector a quantized one stands for. */
export function dequantize({values, scale}: QuantizedVector): Float32Array {
  const out = new Float32Array(values.length)
  for (let i = 0; i < values.length; i++) out[i] = values[i]! * scale
  return out
}

/**
 * The vectors of one agent's facts by fact id, all of one length, and their nearest neighbours.
 * Memory per vector: `dimensions` bytes, 4 for the scale, 4 per 32 dimensions for the sign bits,
 * and the id's entry in a Map and an array (about 600 bytes at 512 dimensions: {@link bytesPerVector}).
 */
export class VectorIndex {
  private readonly words: number
  private readonly options: SearchOptions
  private count = 0
  private capacity = 0
  private values = new Int8Array(0)
  private scales = new Float32Array(0)
  private codes = new Int32Array(0)
  /** Hamming distances of the last search, one per slot, kept to spare an allocation per search. */
  private distances = new Uint16Array(0)
  private ids: string[] = []
  private readonly slots = new Map<string, number>()
  /** Sum of the stored vectors, to take their mean from. */
  private readonly sum: Float64Array
  /** The mean the sign bits are taken against. */
  private readonly centre: Float32Array
  private centredAt = 0
  private changes = 0

  constructor(
    readonly dimensions: number,
    options: Partial<SearchOptions> = {},
  ) {
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > 65535) {
      throw new Error(`a vector index needs a whole number of dimensions from 1 to 65535, not ${dimensions}`)
    }
    this.words = Math.ceil(dimensions / 32)
    this.options = {...DEFAULTS, ...options}
    this.sum = new Float64Array(dimensions)
    this.centre = new Float32Array(dimensions)
  }

  /** How many vectors the index holds. */
  get size(): number {
    return this.count
  }

  /** Bytes the index keeps per vector besides the id string itself: components, scale, sign bits, id entries. */
  get bytesPerVector(): number {
    // A Map entry and an array element cost about 40 bytes together in V8.
    return this.dimensions + 4 + 4 * this.words + 40
  }

  has(id: string): boolean {
    return this.slots.has(id)
  }

  /** Adds `id`'s vector, or replaces it. Throws when the vector has the wrong length or a non-finite component. */
  add(id: string, vector: Float32Array): void {
    this.checkLength(vector.length)
    this.addQuantized(id, quantize(vector))
  }

  /**
   * Adds `id`'s vector in the quantized form {@link quantize} gives and cache/vectors.bin keeps, copying
   * it: vectors read back from the file go in without a round trip through floats.
   */
  addQuantized(id: string, vector: QuantizedVector): void {
    this.checkLength(vector.values.length)
    let slot = this.slots.get(id)
    if (slot === undefined) {
      this.grow()
      slot = this.count++
      this.slots.set(id, slot)
      this.ids[slot] = id
    } else {
      this.accumulate(slot, -1)
    }
    this.values.set(vector.values, slot * this.dimensions)
    this.scales[slot] = vector.scale
    this.accumulate(slot, 1)
    this.changed()
    this.encode(slot)
  }

  /** Removes `id`'s vector; false when it held none. */
  remove(id: string): boolean {
    const slot = this.slots.get(id)
    if (slot === undefined) return false
    this.accumulate(slot, -1)
    const last = --this.count
    if (slot !== last) this.move(last, slot)
    this.slots.delete(id)
    this.ids.length = last
    this.changed()
    if (this.count < this.capacity / 4 && this.capacity > INITIAL_CAPACITY) this.resize(this.capacity / 2)
    return true
  }

  /**
   * The `k` vectors nearest `query` by cosine similarity among those whose id `accept` takes,
   * most similar first, ties by id. `query` need not be unit length. Throws when it has the wrong
   * length. Past {@link SearchOptions.candidates} vectors, the result is approximate: each hit is
   * right, but a true neighbour may be missed (about 1 in 40 at 100,000 vectors, see the bench).
   */
  nearest(query: Float32Array, k: number, accept?: (id: string) => boolean): Neighbour[] {
    this.checkLength(query.length)
    const unit = unitQuery(query)
    if (unit === undefined || k < 1 || this.count === 0) return []
    const wanted = Math.max(this.options.candidates, Math.ceil(k * this.options.oversample))
    const slots = this.count <= wanted ? this.allSlots(accept) : this.candidates(unit, wanted, accept)
    return this.best(unit, slots, k)
  }

  private checkLength(length: number): void {
    if (length !== this.dimensions) {
      throw new Error(
        `a vector of ${length} dimensions cannot go in an index of ${this.dimensions}-dimensional vectors`,
      )
    }
  }

  private allSlots(accept?: (id: string) => boolean): number[] {
    const out: number[] = []
    for (let slot = 0; slot < this.count; slot++) if (accept === undefined || accept(this.ids[slot]!)) out.push(slot)
    return out
  }

  /**
   * About `wanted` accepted slots of least Hamming distance to the query. First a cheap pass over
   * every slot with the first {@link PREFIX_WORDS} words of bits keeps a pool of the closest
   * `prefilter` times `wanted`; the full distance is counted for the pool only. A filter that
   * leaves too few of the pool makes it count the full distance for every slot.
   */
  private candidates(unit: Float64Array, wanted: number, accept?: (id: string) => boolean): number[] {
    const code = this.queryCode(unit)
    const poolSize = wanted * this.options.prefilter
    if (this.words > PREFIX_WORDS && this.count > 2 * poolSize) {
      const out = this.closest(code, this.pool(code, poolSize), wanted, accept)
      if (out.length >= wanted) return out
    }
    return this.closest(code, undefined, wanted, accept)
  }

  /** About `size` slots (at least) of least Hamming distance to `code` over its first words. */
  private pool(code: Int32Array, size: number): Uint32Array {
    const counts = new Uint32Array(32 * PREFIX_WORDS + 1)
    const {codes, distances, words} = this
    for (let slot = 0, base = 0; slot < this.count; slot++, base += words) {
      let bytes = 0
      for (let w = 0; w < PREFIX_WORDS; w++) bytes += byteCounts(codes[base + w]! ^ code[w]!)
      const distance = Math.imul(bytes, 0x01010101) >>> 24
      distances[slot] = distance
      counts[distance]!++
    }
    let threshold = 0
    for (let taken = counts[0]!; taken < size; taken += counts[++threshold]!);
    const pool: number[] = []
    for (let slot = 0; slot < this.count; slot++) if (distances[slot]! <= threshold) pool.push(slot)
    return Uint32Array.from(pool)
  }

  /**
   * About `wanted` accepted slots of `pool` (undefined: all) of least Hamming distance to `code`:
   * the distances, then those under a threshold the counts of each distance give, raised until
   * enough pass `accept` (a filter that takes few ids costs more passes, each a cheap one).
   */
  private closest(
    code: Int32Array,
    pool: Uint32Array | undefined,
    wanted: number,
    accept?: (id: string) => boolean,
  ): number[] {
    const n = pool === undefined ? this.count : pool.length
    const slotAt = pool === undefined ? (i: number) => i : (i: number) => pool[i]!
    const distances = new Uint16Array(n)
    const counts = new Uint32Array(this.dimensions + 1)
    for (let i = 0; i < n; i++) {
      const distance = this.hamming(slotAt(i), code)
      distances[i] = distance
      counts[distance]!++
    }
    const out: number[] = []
    let below = 0
    let threshold = -1
    let looked = 0
    while (out.length < wanted && threshold < this.dimensions) {
      const lower = threshold
      // Accepted so far per slot looked at: how many more slots to look at for the rest.
      const rate = looked === 0 ? 1 : Math.max(out.length / looked, 1 / 64)
      const target = below + Math.ceil((wanted - out.length) / rate)
      while (threshold < this.dimensions && below < target) below += counts[++threshold]!
      looked = below
      for (let i = 0; i < n; i++) {
        const at = distances[i]!
        if (at <= lower || at > threshold) continue
        const slot = slotAt(i)
        if (accept === undefined || accept(this.ids[slot]!)) out.push(slot)
      }
    }
    return out
  }

  private hamming(slot: number, code: Int32Array): number {
    const {codes, words} = this
    const base = slot * words
    let total = 0
    let bytes = 0
    for (let w = 0; w < words; w++) {
      bytes += byteCounts(codes[base + w]! ^ code[w]!)
      // The multiply sums the four bytes into the top one, which holds at most 255: at most 4
      // words (128 bits) are summed between two multiplies.
      if ((w & 3) !== 3) continue
      total += Math.imul(bytes, 0x01010101) >>> 24
      bytes = 0
    }
    return total + (Math.imul(bytes, 0x01010101) >>> 24)
  }

  /** The `k` best of `slots` by the int8 dot product with the unit query, sorted. */
  private best(unit: Float64Array, slots: readonly number[], k: number): Neighbour[] {
    // The best k so far, kept sorted: most slots fall below the k-th and cost one comparison.
    const top: Neighbour[] = []
    for (const slot of slots) {
      const similarity = this.dot(unit, slot)
      if (top.length === k && similarity < top[k - 1]!.similarity) continue
      const hit = {id: this.ids[slot]!, similarity}
      let at = top.length
      while (at > 0 && before(hit, top[at - 1]!)) at--
      if (at < k) top.splice(at, 0, hit)
      if (top.length > k) top.pop()
    }
    return top
  }

  private dot(unit: Float64Array, slot: number): number {
    const {values, dimensions} = this
    const base = slot * dimensions
    let s = 0
    for (let i = 0; i < dimensions; i++) s += unit[i]! * values[base + i]!
    return s * this.scales[slot]!
  }

  private queryCode(unit: Float64Array): Int32Array {
    const code = new Int32Array(this.words)
    for (let i = 0; i < this.dimensions; i++) if (unit[i]! > this.centre[i]!) code[i >>> 5]! |= 1 << (i & 31)
    return code
  }

  /** The sign bits of `slot`'s vector less the mean. */
  private encode(slot: number): void {
    const {values, codes, centre, dimensions, words} = this
    const scale = this.scales[slot]!
    const base = slot * dimensions
    for (let w = 0; w < words; w++) {
      let bits = 0
      const end = Math.min(dimensions, 32 * w + 32)
      // Without a branch (the sign is a coin toss, so a branch is mispredicted half the time).
      for (let i = 32 * w; i < end; i++) bits |= +(values[base + i]! * scale > centre[i]!) << (i & 31)
      codes[slot * words + w] = bits
    }
  }

  private accumulate(slot: number, sign: 1 | -1): void {
    const {values, sum, dimensions} = this
    const factor = sign * this.scales[slot]!
    const base = slot * dimensions
    for (let i = 0; i < dimensions; i++) sum[i]! += values[base + i]! * factor
  }

  /**
   * Counts a change, and retakes the mean once the changes since it was taken match the count
   * then, re-encoding every vector's bits: a cost proportional to the index, paid each time it
   * doubles (or turns over), so a constant per change.
   */
  private changed(): void {
    if (++this.changes < Math.max(RECENTRE_MIN, this.centredAt)) return
    for (let i = 0; i < this.dimensions; i++) this.centre[i] = this.count === 0 ? 0 : this.sum[i]! / this.count
    this.centredAt = this.count
    this.changes = 0
    for (let slot = 0; slot < this.count; slot++) this.encode(slot)
  }

  private move(from: number, to: number): void {
    const {dimensions: d, words: w} = this
    this.values.copyWithin(to * d, from * d, from * d + d)
    this.codes.copyWithin(to * w, from * w, from * w + w)
    this.scales[to] = this.scales[from]!
    const id = this.ids[from]!
    this.ids[to] = id
    this.slots.set(id, to)
  }

  private grow(): void {
    if (this.count < this.capacity) return
    this.resize(Math.max(INITIAL_CAPACITY, this.capacity * 2))
  }

  private resize(capacity: number): void {
    const values = new Int8Array(capacity * this.dimensions)
    values.set(this.values.subarray(0, this.count * this.dimensions))
    const codes = new Int32Array(capacity * this.words)
    codes.set(this.codes.subarray(0, this.count * this.words))
    const scales = new Float32Array(capacity)
    scales.set(this.scales.subarray(0, this.count))
    this.values = values
    this.codes = codes
    this.scales = scales
    this.distances = new Uint16Array(capacity)
    this.capacity = capacity
  }
}

/** Whether `a` ranks before `b`: more similar, or as similar with the smaller id. */
/**
 * The number of set bits of each byte of `x`, in that byte (the first steps of the usual SWAR bit
 * count). Summed over up to 4 words, their total is `Math.imul(sum, 0x01010101) >>> 24`.
 */
function byteCounts(x: number): number {
  x -= (x >>> 1) & 0x55555555
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333)
  return (x + (x >>> 4)) & 0x0f0f0f0f
}

function before(a: Neighbour, b: Neighbour): boolean {
  return a.similarity > b.similarity || (a.similarity === b.similarity && a.id < b.id)
}

/** `query` scaled to length 1, in float64 for the inner loops; undefined for a zero or non-finite vector. */
function unitQuery(query: Float32Array): Float64Array | undefined {
  let squares = 0
  for (let i = 0; i < query.length; i++) squares += query[i]! * query[i]!
  if (!(squares > 0) || !Number.isFinite(squares)) return undefined
  const norm = Math.sqrt(squares)
  const out = new Float64Array(query.length)
  for (let i = 0; i < query.length; i++) out[i] = query[i]! / norm
  return out
}
