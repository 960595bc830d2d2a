import assert from 'node:assert/strict'

import {VectorIndex, dequantize, quantize} from '../../src/meaning/vector-index.js'
import {SyntheticVectors, dot, exactNearest, random} from '../helpers/vectors.js'

const id = (i: number) => `F${String(i).padStart(6, '0')}`

/** Recall of `got` ids against the exact nearest of `vectors` (ids from {@link id}). */
function recall(got: readonly string[], vectors: readonly Float32Array[], query: Float32Array, k: number): number {
  const want = new Set(exactNearest(vectors, query, k).map(id))
  return got.filter((x) => want.has(x)).length / k
}

describe('VectorIndex', () => {
  it('quantizes to int8 with a scale that gives a unit vector, within 0.01 of each component', () => {
    const v = new SyntheticVectors(512, 2).vector()
    const q = quantize(v)
    const back = dequantize(q)
    assert.ok(Math.abs(dot(back, back) - 1) < 1e-5)
    assert.ok(Math.abs(dot(back, v) - 1) < 1e-3)
    assert.ok(back.every((x, i) => Math.abs(x - v[i]!) < 0.01))
    assert.equal(Math.max(...Array.from(q.values, Math.abs)), 127)
  })

  it('finds the same neighbours as exact cosine on a small set, with similarities within 0.01', () => {
    const source = new SyntheticVectors(64, 3, 10)
    const vectors = source.vectors(300)
    const index = new VectorIndex(64)
    vectors.forEach((v, i) => index.add(id(i), v))
    for (let q = 0; q < 20; q++) {
      const query = source.near(vectors[q * 13]!, 1)
      const got = index.nearest(query, 10)
      const want = exactNearest(vectors, query, 10)
      assert.equal(got.length, 10)
      // Quantization may swap two near-ties; the exact order otherwise.
      assert.ok(
        recall(
          got.map((h) => h.id),
          vectors,
          query,
          10,
        ) >= 0.9,
      )
      assert.equal(got[0]!.id, id(want[0]!))
      for (const hit of got) assert.ok(Math.abs(hit.similarity - dot(vectors[Number(hit.id.slice(1))]!, query)) < 0.01)
      for (let i = 1; i < got.length; i++) assert.ok(got[i - 1]!.similarity >= got[i]!.similarity)
    }
  })

  it('has a recall@50 of at least 0.95 against exact cosine on 10,000 clustered vectors past the candidate count', function () {
    this.timeout(120_000)
    const source = new SyntheticVectors(512, 11)
    const vectors = source.vectors(10_000)
    // A candidate count well under the size, so the sign bits and both passes choose.
    const index = new VectorIndex(512, {candidates: 500, oversample: 10, prefilter: 4})
    vectors.forEach((v, i) => index.add(id(i), v))
    let total = 0
    const queries = 40
    for (let q = 0; q < queries; q++) {
      const query = source.near(vectors[(q * 7919) % vectors.length]!, 1)
      total += recall(
        index.nearest(query, 50).map((h) => h.id),
        vectors,
        query,
        50,
      )
    }
    assert.ok(total / queries >= 0.95, `recall@50 ${total / queries}`)
  })

  it('adds, replaces, removes, and counts', () => {
    const index = new VectorIndex(3)
    index.add('a', Float32Array.of(1, 0, 0))
    index.add('b', Float32Array.of(0, 1, 0))
    assert.equal(index.size, 2)
    assert.ok(index.has('a') && index.has('b') && !index.has('c'))
    index.add('a', Float32Array.of(0, 0, 1))
    assert.equal(index.size, 2)
    assert.deepEqual(
      index.nearest(Float32Array.of(0, 0, 1), 1).map((h) => h.id),
      ['a'],
    )
    assert.ok(index.nearest(Float32Array.of(1, 0, 0), 2).every((h) => h.similarity < 0.01))
    assert.equal(index.remove('a'), true)
    assert.equal(index.remove('a'), false)
    assert.equal(index.size, 1)
    assert.ok(!index.has('a'))
    assert.deepEqual(
      index.nearest(Float32Array.of(0, 0, 1), 5).map((h) => h.id),
      ['b'],
    )
  })

  it('sorts equal similarities by id, and takes a query of any length but zero', () => {
    const index = new VectorIndex(2)
    for (const name of ['c', 'a', 'b']) index.add(name, Float32Array.of(0.6, 0.8))
    const hits = index.nearest(Float32Array.of(3, 4), 3)
    assert.deepEqual(
      hits.map((h) => h.id),
      ['a', 'b', 'c'],
    )
    assert.ok(Math.abs(hits[0]!.similarity - 1) < 0.01)
    assert.deepEqual(index.nearest(Float32Array.of(0, 0), 3), [])
  })

  it('keeps to the ids the filter accepts, past the candidate count too', () => {
    const source = new SyntheticVectors(128, 5, 40)
    const vectors = source.vectors(3000)
    for (const options of [{}, {candidates: 100, oversample: 2, prefilter: 3}]) {
      const index = new VectorIndex(128, options)
      vectors.forEach((v, i) => index.add(id(i), v))
      const query = source.near(vectors[17]!)
      // One id in 50: far fewer than the candidates the first threshold lets through.
      const accept = (x: string) => Number(x.slice(1)) % 50 === 0
      const got = index.nearest(query, 20, accept)
      assert.equal(got.length, 20)
      assert.ok(got.every((h) => accept(h.id)))
      const allowed = vectors.map((v, i) => (accept(id(i)) ? v : new Float32Array(128)))
      assert.ok(
        recall(
          got.map((h) => h.id),
          allowed,
          query,
          20,
        ) >= 0.9,
      )
    }
  })

  it('throws a clear error for a vector or query of the wrong length, or a component that is not a number', () => {
    const index = new VectorIndex(4)
    assert.throws(() => index.add('a', new Float32Array(3)), /3 dimensions cannot go in an index of 4-dimensional/)
    assert.throws(() => index.nearest(new Float32Array(5), 1), /5 dimensions/)
    assert.throws(() => index.add('a', Float32Array.of(1, NaN, 0, 0)), /component 1 of the vector is NaN/)
    assert.throws(() => new VectorIndex(0), /whole number of dimensions/)
    assert.equal(index.size, 0)
  })

  it('stays right and fast through many removals and adds', () => {
    const source = new SyntheticVectors(64, 9, 30)
    const next = random(4)
    const index = new VectorIndex(64, {candidates: 200, oversample: 4, prefilter: 4})
    const live = new Map<string, Float32Array>()
    for (let round = 0; round < 6; round++) {
      for (let i = 0; i < 1500; i++) {
        const name = `r${round}-${i}`
        const v = source.vector()
        index.add(name, v)
        live.set(name, v)
      }
      // Removes about nine in ten, at random: the index must shrink with them.
      for (const name of [...live.keys()]) {
        if (next() < 0.9) {
          assert.ok(index.remove(name))
          live.delete(name)
        }
      }
      assert.equal(index.size, live.size)
    }
    const names = [...live.keys()]
    const vectors = [...live.values()]
    for (let q = 0; q < 10; q++) {
      const query = source.near(vectors[q * 7]!)
      const got = index.nearest(query, 20).map((h) => h.id)
      assert.ok(got.every((name) => live.has(name)))
      const want = new Set(exactNearest(vectors, query, 20).map((i) => names[i]!))
      assert.ok(got.filter((name) => want.has(name)).length >= 18)
    }
    assert.ok((index as unknown as {capacity: number}).capacity <= 4 * Math.max(64, index.size))
  })

  it('reports its memory per vector', () => {
    assert.equal(new VectorIndex(512).bytesPerVector, 512 + 4 + 64 + 40)
  })
})
