import MiniSearch from 'minisearch'

import {FactIndex} from '../../src/search/fact-index.js'

/** A fresh, empty store for one conversation: add facts in order, then search them. */
export interface Retriever {
  /** Returns the id the store gave the fact. */
  add(content: string, createdAt: string | undefined): Promise<string>
  /** Fact ids, best first. */
  search(query: string, limit: number): Promise<string[]>
  close(): Promise<void>
}

export interface RetrieverKind {
  name: string
  open(): Promise<Retriever>
}

/** Plain BM25 with MiniSearch's defaults: the baseline the README reports. */
export const plainBm25: RetrieverKind = {
  name: 'plain BM25 (MiniSearch defaults)',
  async open() {
    const mini = new MiniSearch<{id: string; content: string}>({fields: ['content']})
    let next = 0
    return {
      async add(content) {
        const id = String(next++)
        mini.add({id, content})
        return id
      },
      async search(query, limit) {
        return mini.search(query).slice(0, limit).map((r) => String(r.id))
      },
      async close() {},
    }
  },
}

/** mem's own index, driven directly. */
export const memFactIndex: RetrieverKind = {
  name: 'mem search (FactIndex)',
  async open() {
    const index = new FactIndex()
    let next = 0
    return {
      async add(content, createdAt) {
        // Zero-padded so that id order is insertion order, like the store's ULIDs.
        const id = String(next++).padStart(8, '0')
        index.add({id, content, tags: [], created_at: createdAt ?? new Date(0).toISOString()})
        return id
      },
      async search(query, limit) {
        return index.search(query, {limit}).map((h) => h.id)
      },
      async close() {},
    }
  },
}
