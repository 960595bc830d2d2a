/**
 * Synthetic embeddings shaped like sentence embeddings, for the vector index's tests and bench:
 * uniform random vectors are all about orthogonal, with no neighbours worth the name, and say
 * nothing of how sign bits or quantization rank real ones. These are clustered (a few hundred
 * topics), anisotropic (topics and the spread within them lie in a 48-dimensional subspace whose
 * axes carry decreasing variance, mapped to the full length by a fixed random matrix), noisy in
 * every dimension, and share a common offset, so that unrelated vectors have cosines around 0.3
 * as real ones do. Seeded: the same arguments give the same vectors.
 */

import {rng} from '../../bench/speed/facts.js'

const LATENT = 48

/** A seeded generator of uniform numbers in [0, 1), the benchmark's (mulberry32). */
export const random = rng

function gaussian(next: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next())
}

/** Scales `v` to length 1 in place. */
export function normalize(v: Float32Array): Float32Array {
  let s = 0
  for (const x of v) s += x * x
  const n = Math.sqrt(s)
  for (let i = 0; i < v.length; i++) v[i]! /= n
  return v
}

/** A source of clustered vectors of `dimensions` components, and of queries near given vectors. */
export class SyntheticVectors {
  private readonly normal: () => number
  private readonly next: () => number
  private readonly basis: Float32Array[]
  private readonly offset: Float32Array
  private readonly centres: Float64Array[]

  constructor(
    readonly dimensions: number,
    seed = 1,
    clusters = 300,
  ) {
    this.next = random(seed)
    this.normal = gaussian(this.next)
    this.basis = Array.from({length: LATENT}, () => this.noise(1 / Math.sqrt(dimensions)))
    this.offset = this.noise(1 / Math.sqrt(dimensions))
    // Decreasing spread along the latent axes: a few directions carry most of the variation.
    this.centres = Array.from({length: clusters}, () => this.latent(1))
  }

  /** A fresh vector of a random topic, unit length. */
  vector(): Float32Array {
    const centre = this.centres[Math.floor(this.next() * this.centres.length)]!
    const within = this.latent(0.6)
    const v = this.noise(0.35 / Math.sqrt(this.dimensions))
    for (let j = 0; j < LATENT; j++) {
      const weight = centre[j]! + within[j]!
      const axis = this.basis[j]!
      for (let i = 0; i < v.length; i++) v[i]! += weight * axis[i]!
    }
    for (let i = 0; i < v.length; i++) v[i]! += 2.5 * this.offset[i]!
    return normalize(v)
  }

  /** `count` fresh vectors. */
  vectors(count: number): Float32Array[] {
    return Array.from({length: count}, () => this.vector())
  }

  /** A query near `v`: the same topic, worded otherwise. */
  near(v: Float32Array, spread = 0.6): Float32Array {
    const q = this.noise(spread / Math.sqrt(this.dimensions))
    for (let i = 0; i < q.length; i++) q[i]! += v[i]!
    return normalize(q)
  }

  private latent(scale: number): Float64Array {
    return Float64Array.from({length: LATENT}, (_, j) => (scale * this.normal()) / Math.sqrt(1 + j / 6))
  }

  private noise(sd: number): Float32Array {
    return Float32Array.from({length: this.dimensions}, () => sd * this.normal())
  }
}

/** The `k` ids of `vectors` nearest `query` by exact float cosine (all unit length), best first, ties by index. */
export function exactNearest(vectors: readonly Float32Array[], query: Float32Array, k: number): number[] {
  const scores = vectors.map((v, i) => ({i, s: dot(v, query)}))
  scores.sort((a, b) => b.s - a.s || a.i - b.i)
  return scores.slice(0, k).map((x) => x.i)
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!
  return s
}
