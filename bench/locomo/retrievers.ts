import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'

import MiniSearch from 'minisearch'

import {memoryAdd, memorySearch, runOperation, type OperationContext} from '../../src/ops/index.js'
import {FactIndex, type Tuning} from '../../src/search/fact-index.js'
import {FileStore} from '../../src/store/file-store.js'

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

const AGENT = 'locomo'

/**
 * mem end to end: memory_add and memory_search run through the operation runner, on a
 * FileStore opened on a temporary MEM_HOME. memory_add stamps facts with the current time,
 * so the session dates of the data are not used on this path.
 */
export const memOperations: RetrieverKind = {
  name: 'mem (memory_add + memory_search operations)',
  async open() {
    const home = mkdtempSync(path.join(tmpdir(), 'mem-locomo-'))
    const ctx: OperationContext = {store: new FileStore(home), defaultAgent: AGENT}
    return {
      async add(content) {
        const out = await runOperation(memoryAdd, ctx, {agent_id: AGENT, content})
        return out.fact_id
      },
      async search(query, limit) {
        const out = await runOperation(memorySearch, ctx, {agent_id: AGENT, query: query, limit})
        return out.facts.map((f) => f.id)
      },
      async close() {
        rmSync(home, {recursive: true, force: true})
      },
    }
  },
}

/**
 * mem's index driven directly, with each turn's session date as its creation time: what
 * search does when facts carry the time they were said (memory_add has no way to pass one).
 */
export function memFactIndex(name = 'mem FactIndex, session dates as created_at', tuning: Partial<Tuning> = {}): RetrieverKind {
  return {
    name,
    async open() {
      const index = new FactIndex(tuning)
      let next = 0
      return {
        async add(content, createdAt) {
          // Zero-padded so that id order is insertion order, like the store's ULIDs.
          const id = String(next++).padStart(8, '0')
          index.add({id, content, tags: [], created_at: createdAt ?? new Date().toISOString()})
          return id
        },
        async search(query, limit) {
          return index.search(query, {limit}).map((h) => h.id)
        },
        async close() {},
      }
    },
  }
}

/** Plain BM25 with MiniSearch's defaults: the baseline the data's README reports. */
export const plainBm25: RetrieverKind = {
  name: 'baseline: plain BM25 (MiniSearch defaults)',
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
