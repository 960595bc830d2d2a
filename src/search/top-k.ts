/**
 * Keeps the best `k` of `count` items (numbered 0..count-1) without sorting them all: a search
 * over 100,000 facts may score tens of thousands, and ten are wanted. `better(a, b)` must be a
 * strict total order (true when a ranks before b). Returns the kept items, best first.
 */
export function topK(count: number, k: number, better: (a: number, b: number) => boolean): number[] {
  if (k <= 0) return []
  // heap[0] is the worst item kept so far.
  const heap: number[] = []
  const worse = (i: number, j: number) => better(heap[j]!, heap[i]!)
  const swap = (i: number, j: number) => {
    const t = heap[i]!
    heap[i] = heap[j]!
    heap[j] = t
  }
  for (let item = 0; item < count; item++) {
    if (heap.length < k) {
      heap.push(item)
      for (let i = heap.length - 1; i > 0;) {
        const parent = (i - 1) >> 1
        if (!worse(i, parent)) break
        swap(i, parent)
        i = parent
      }
      continue
    }
    if (!better(item, heap[0]!)) continue
    heap[0] = item
    for (let i = 0; ;) {
      const l = 2 * i + 1
      const r = l + 1
      let m = i
      if (l < heap.length && worse(l, m)) m = l
      if (r < heap.length && worse(r, m)) m = r
      if (m === i) break
      swap(i, m)
      i = m
    }
  }
  return heap.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0))
}

/**
 * The m-th largest of `value(0..count-1)`, or -Infinity when there are fewer than m values: a
 * numeric min-heap, so tens of thousands of values cost well under a millisecond.
 */
export function mthLargest(count: number, m: number, value: (i: number) => number): number {
  if (m <= 0) return Number.POSITIVE_INFINITY
  if (count < m) return Number.NEGATIVE_INFINITY
  const heap = new Float64Array(m)
  for (let i = 0; i < m; i++) heap[i] = value(i)
  for (let i = (m >> 1) - 1; i >= 0; i--) siftDown(heap, i)
  for (let i = m; i < count; i++) {
    const v = value(i)
    if (v <= heap[0]!) continue
    heap[0] = v
    siftDown(heap, 0)
  }
  return heap[0]!
}

function siftDown(heap: Float64Array, i: number): void {
  const n = heap.length
  for (;;) {
    const l = 2 * i + 1
    const r = l + 1
    let m = i
    if (l < n && heap[l]! < heap[m]!) m = l
    if (r < n && heap[r]! < heap[m]!) m = r
    if (m === i) return
    const t = heap[i]!
    heap[i] = heap[m]!
    heap[m] = t
    i = m
  }
}
