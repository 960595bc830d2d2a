/**
 * One node of a {@link TermTree}: whether a key ends here, and the edges below it, sorted by
 * label. Labels of one node start with distinct code units, so that order is also theirs.
 */
interface Node {
  end: boolean
  labels: string[]
  kids: Node[]
}

/** The edges of a node with none, shared: most nodes are leaves, and two arrays each would be most of the tree. */
const NO_LABELS: string[] = []
const NO_KIDS: Node[] = []

const leaf = (): Node => ({end: true, labels: NO_LABELS, kids: NO_KIDS})

/**
 * A radix tree of the words search knows (terms and words as written), answering what loose
 * matching asks (loose-match.ts): the words a prefix starts, and the words within a number of
 * edits of a misspelt one. Strings are compared by UTF-16 code units, as `<` and `sort()` do: keys
 * come back in the order `sort()` gives, and an edit is a change of one code unit (a letter outside
 * the Basic Multilingual Plane, an emoji, takes two).
 */
export class TermTree {
  private constructor(private readonly root: Node) {}

  /**
   * A tree of `sorted` keys (ascending, as `sort()` orders them; repeats are skipped), built in
   * one pass that also checks the order: keys out of order throw a RangeError.
   */
  static fromSorted(sorted: readonly string[]): TermTree {
    return new TermTree(sorted.length === 0 ? {end: false, labels: [], kids: []} : build(sorted, 0, sorted.length, 0))
  }

  /** Adds `key` (again is fine). */
  add(key: string): void {
    let at = this.root
    let pos = 0
    for (;;) {
      if (pos === key.length) {
        at.end = true
        return
      }
      const k = childIndex(at, key.charCodeAt(pos))
      if (k < 0) {
        if (at.labels === NO_LABELS) {
          at.labels = []
          at.kids = []
        }
        at.labels.splice(~k, 0, key.slice(pos))
        at.kids.splice(~k, 0, leaf())
        return
      }
      const label = at.labels[k]!
      const shared = sharedLength(label, key, pos)
      if (shared < label.length) {
        // The key leaves the edge part way: the edge splits there.
        const middle: Node = {end: false, labels: [label.slice(shared)], kids: [at.kids[k]!]}
        at.labels[k] = label.slice(0, shared)
        at.kids[k] = middle
      }
      at = at.kids[k]!
      pos += shared
    }
  }

  has(key: string): boolean {
    let at = this.root
    let pos = 0
    while (pos < key.length) {
      const k = childIndex(at, key.charCodeAt(pos))
      if (k < 0 || !key.startsWith(at.labels[k]!, pos)) return false
      pos += at.labels[k]!.length
      at = at.kids[k]!
    }
    return at.end
  }

  /** Every key that starts with `prefix`, `prefix` itself included, in sorted order. */
  withPrefix(prefix: string): string[] {
    let at = this.root
    let pos = 0
    let path = ''
    while (pos < prefix.length) {
      const k = childIndex(at, prefix.charCodeAt(pos))
      if (k < 0) return []
      const label = at.labels[k]!
      const rest = prefix.length - pos
      // The prefix ends inside this edge, or passes through it whole.
      if (rest <= label.length ? !label.startsWith(prefix.slice(pos)) : !prefix.startsWith(label, pos)) return []
      path += label
      pos += label.length
      at = at.kids[k]!
    }
    const out: string[] = []
    collect(at, path, out)
    return out
  }

  /**
   * The keys at most `most` edits from `word`, each with its edits (Levenshtein distance: an
   * insertion, deletion or substitution of one code unit; swapping two neighbours is two), in
   * sorted order. Walks the tree keeping one row of the edit matrix per code unit on the path,
   * and leaves a branch as soon as its row's least distance is over `most`.
   */
  within(word: string, most: number): Map<string, number> {
    if (!Number.isInteger(most) || most < 0) throw new RangeError(`most must be a whole number ≥ 0, not ${most}`)
    const found = new Map<string, number>()
    const last = word.length
    const far = most + 1
    // A path within `most` edits keeps to the cells (i, j) with |i - j| <= most: row i holds only
    // those, column j at i * width + j - i + far, between two cells that stay `far` (below their
    // true value, but far enough that nothing computed from them comes within `most`). A key
    // more than `most` longer than the word is too far: rows 0..last+most are all a path needs.
    const width = 2 * most + 3
    const matrix = new Int32Array((last + most + 1) * width).fill(far)
    for (let i = 0; i <= most; i++) matrix[i * width + far - i] = i
    for (let j = 1; j <= Math.min(last, most); j++) matrix[j + far] = j
    const codes = new Uint16Array(last)
    for (let j = 0; j < last; j++) codes[j] = word.charCodeAt(j)

    /**
     * Fills the rows of `label`'s code units below row `depth`: the depth the edge reaches, or -1
     * when every path through it is already more than `most` edits away (or too long).
     */
    const follow = (label: string, depth: number): number => {
      let i = depth
      for (let pos = 0; pos < label.length; pos++) {
        i++
        if (i > last + most) return -1
        const code = label.charCodeAt(pos)
        // Cell (i, j) is at base + j; (i - 1, j - 1) at the same place a row up, (i - 1, j) one after.
        const base = i * width - i + far
        let least = i <= most ? i : far
        const hi = Math.min(last, i + most)
        for (let j = Math.max(1, i - most); j <= hi; j++) {
          const replace = matrix[base - width + j]! + (code === codes[j - 1] ? 0 : 1)
          const remove = matrix[base - width + j + 1]! + 1
          const insert = matrix[base + j - 1]! + 1
          const d = replace < remove ? (replace < insert ? replace : insert) : remove < insert ? remove : insert
          matrix[base + j] = d
          if (d < least) least = d
        }
        if (least > most) return -1
      }
      return i
    }
    const report = (key: string, depth: number): void => {
      if (Math.abs(last - depth) > most) return
      const distance = matrix[depth * width + last - depth + far]!
      if (distance <= most) found.set(key, distance)
    }

    // Depth first, edges in order (so keys are found sorted), with the path in arrays rather
    // than on the call stack: with nested keys ("a", "aa", "aaa", …) a path is as long as the
    // word, too deep to recurse. Entry n of each array is the nth node on the path: the node, the
    // key it spells, its row of the matrix, and its next edge to try (slots are reused, not
    // allocated, as the path grows again). A node's rows stay put while its edges are tried one
    // by one: what lies below an edge writes only the rows under them.
    if (this.root.end) report('', 0)
    const nodes = [this.root]
    const keys = ['']
    const depths = [0]
    const nexts = [0]
    let top = 0
    walk: while (top >= 0) {
      const at = nodes[top]!
      for (let k = nexts[top]!; k < at.labels.length; k++) {
        const depth = follow(at.labels[k]!, depths[top]!)
        if (depth < 0) continue
        const kid = at.kids[k]!
        const key = keys[top]! + at.labels[k]!
        if (kid.end) report(key, depth)
        if (kid.labels.length > 0) {
          nexts[top] = k + 1
          top++
          nodes[top] = kid
          keys[top] = key
          depths[top] = depth
          nexts[top] = 0
          continue walk
        }
      }
      top--
    }
    return found
  }
}

/** A node being built: its keys not yet under an edge are sorted[next..hi), sharing `depth` code units. */
interface Building {
  node: Node
  next: number
  hi: number
  depth: number
  /** The first code unit of the node's last edge so far (-1 before the first). */
  previous: number
}

/**
 * The node over sorted[lo..hi), keys that share their first `depth` code units. Keys are in order
 * exactly when, at every node, the key ending there comes first and the edges' first code units
 * rise: that is checked on the way, at the cost of reading each key's part of each edge once.
 *
 * Depth first, each node's edges in order (so that the first pair of keys out of order is the one
 * reported), with the nodes under construction in an array rather than on the call stack: nested
 * keys ("a", "aa", "aaa", …) make the tree as deep as the longest of them, too deep to recurse.
 */
function build(sorted: readonly string[], lo: number, hi: number, depth: number): Node {
  const root = open(sorted, lo, hi, depth)
  const path = [root]
  while (path.length > 0) {
    const top = path[path.length - 1]!
    if (top.next === top.hi) path.pop()
    else path.push(nextEdge(sorted, top))
  }
  return root.node
}

/** Starts the node over sorted[lo..hi): skips the key ending here, if any (a leaf when that is all). */
function open(sorted: readonly string[], lo: number, hi: number, depth: number): Building {
  let i = lo
  while (i < hi && sorted[i]!.length === depth) i++
  const node = i === hi ? leaf() : {end: i > lo, labels: [], kids: []}
  return {node, next: i, hi, depth, previous: -1}
}

/** Adds the next edge of `at`, the one its next keys share, and starts the node at its end. */
function nextEdge(sorted: readonly string[], at: Building): Building {
  const {depth} = at
  const i = at.next
  const first = sorted[i]!
  const code = first.charCodeAt(depth)
  // NaN (a key ending here, after others) fails this too.
  if (!(code > at.previous))
    throw new RangeError(`keys out of order: ${JSON.stringify(sorted[i - 1])} before ${JSON.stringify(first)}`)
  at.previous = code
  // The edge is what all keys starting with `code` share.
  let end = first.length
  let j = i + 1
  for (; j < at.hi; j++) {
    const key = sorted[j]!
    if (key.charCodeAt(depth) !== code) break
    const max = Math.min(end, key.length)
    let e = depth + 1
    while (e < max && key.charCodeAt(e) === first.charCodeAt(e)) e++
    end = e
  }
  const kid = open(sorted, i, j, end)
  at.node.labels.push(first.slice(depth, end))
  at.node.kids.push(kid.node)
  at.next = j
  return kid
}

/** The index of the edge of `at` starting with `code`, or ~(where it would go). */
function childIndex(at: Node, code: number): number {
  let lo = 0
  let hi = at.labels.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    const c = at.labels[mid]!.charCodeAt(0)
    if (c === code) return mid
    if (c < code) lo = mid + 1
    else hi = mid
  }
  return ~lo
}

/** How many code units `label` shares with `key` from `pos` on (at least the first, which led to it). */
function sharedLength(label: string, key: string, pos: number): number {
  const max = Math.min(label.length, key.length - pos)
  let shared = 1
  while (shared < max && label.charCodeAt(shared) === key.charCodeAt(pos + shared)) shared++
  return shared
}

/**
 * Appends the keys at and under `at` (whose path spells `key`) to `out`, in sorted order. A stack
 * of nodes to visit rather than recursion: nested keys ("a", "aa", "aaa", …) make the tree as deep
 * as the longest of them, too deep for the call stack.
 */
function collect(at: Node, key: string, out: string[]): void {
  const nodes = [at]
  const keys = [key]
  while (nodes.length > 0) {
    const node = nodes.pop()!
    const path = keys.pop()!
    if (node.end) out.push(path)
    // The last edge goes on first, so that the first comes off next and keys come out sorted.
    for (let k = node.labels.length - 1; k >= 0; k--) {
      nodes.push(node.kids[k]!)
      keys.push(path + node.labels[k]!)
    }
  }
}
