import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'

import MiniSearch from 'minisearch'

import {memorySearch, runOperation, type OperationContext} from '../../src/ops/index.js'
import {FactIndex, type Tuning} from '../../src/search/fact-index.js'
import {newId} from '../../src/store/ids.js'
import {FileStore} from '../../src/store/file-store.js'
import {EXPORT_FORMAT, EXPORT_VERSION} from '../../src/transfer/export-format.js'
import {importRecords} from '../../src/transfer/import.js'

/** One turn to store: its text and the time it was said (ISO 8601, UTC). */
export interface Item {
  content: string
  createdAt: string
  /** The conversation it is a turn of, if any. */
  thread?: string
}

/** A fresh, empty store for one conversation: load its facts in order, then search them. */
export interface Retriever {
  /** Stores the items in order; returns the id each one got. */
  load(items: readonly Item[]): Promise<string[]>
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
 * mem end to end: the conversation goes in through the import operation (`mem import` of a
 * mem.export file, which keeps ids and times, so each turn carries the time it was said), into
 * a FileStore on a temporary MEM_HOME; questions go through the memory_search operation.
 */
export const memImport: RetrieverKind = {
  name: 'mem (import + memory_search operations)',
  async open() {
    const home = mkdtempSync(path.join(tmpdir(), 'mem-locomo-'))
    const ctx: OperationContext = {store: new FileStore(home), defaultAgent: AGENT}
    return {
      async load(items) {
        // ULIDs carry their time, so id order is time order, as for facts added live.
        const ids = items.map((item) => newId(Date.parse(item.createdAt)))
        const lines = [
          JSON.stringify({type: 'header', format: EXPORT_FORMAT, version: EXPORT_VERSION}),
          ...items.map((item, i) => JSON.stringify({type: 'fact', agent_id: AGENT, id: ids[i], content: item.content, tags: [], created_at: item.createdAt, thread: item.thread})),
        ]
        const report = await importRecords(ctx, {text: lines.join('\n') + '\n'})
        if (report.added.facts !== items.length) throw new Error(`import added ${report.added.facts} of ${items.length} facts: ${JSON.stringify(report.skipped.slice(0, 3))}`)
        return ids
      },
      async search(query, limit) {
        const out = await runOperation(memorySearch, ctx, {agent_id: AGENT, query, limit})
        return out.facts.map((f) => f.id)
      },
      async close() {
        rmSync(home, {recursive: true, force: true})
      },
    }
  },
}

/**
 * mem's index driven directly, with the same times as {@link memImport}: ranks exactly as the
 * end-to-end path does, fast enough to try each ranking choice switched off.
 */
export function memFactIndex(name = 'mem FactIndex', tuning: Partial<Tuning> = {}): RetrieverKind {
  return {
    name,
    async open() {
      const index = new FactIndex(tuning)
      return {
        async load(items) {
          return items.map((item, i) => {
            // Zero-padded so that id order is insertion order, like the store's ULIDs.
            const id = String(i).padStart(8, '0')
            index.add({id, content: item.content, tags: [], created_at: item.createdAt, thread: item.thread})
            return id
          })
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
    return {
      async load(items) {
        return items.map((item, i) => {
          const id = String(i)
          mini.add({id, content: item.content})
          return id
        })
      },
      async search(query, limit) {
        return mini.search(query).slice(0, limit).map((r) => String(r.id))
      },
      async close() {},
    }
  },
}
