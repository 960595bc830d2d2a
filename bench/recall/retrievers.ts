import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import path from 'node:path'

import MiniSearch, {type Options} from 'minisearch'

import type {Embedder} from '../../src/meaning/embedder.js'
import {Meaning} from '../../src/meaning/meaning.js'
import {VectorIndex} from '../../src/meaning/vector-index.js'
import {memoryAdd, memorySearch, runOperation, type OperationContext} from '../../src/ops/index.js'
import {FactIndex, type Tuning} from '../../src/search/fact-index.js'
import {ENGLISH_STOPWORDS} from '../../src/search/stopwords.js'
import {newId} from '../../src/store/ids.js'
import {FileStore} from '../../src/store/file/file-store.js'
import {EXPORT_FORMAT, EXPORT_VERSION} from '../../src/transfer/export-format.js'
import {importRecords} from '../../src/transfer/import.js'
import type {Doc, RecallSet} from './sets.js'

export interface Hit {
  id: string
  content: string
  /** Returned as context of another hit of its thread, not for its own words. */
  context: boolean
}

/** A fresh, empty store for one haystack: load its items, then search them. */
export interface Retriever {
  /** Stores the items in order; returns the id each one got. */
  load(docs: readonly Doc[], how: RecallSet['load']): Promise<string[]>
  search(query: string, limit: number): Promise<Hit[]>
  close(): Promise<void>
}

export interface RetrieverKind {
  name: string
  open(): Promise<Retriever>
}

const AGENT = 'bench'

/**
 * mem end to end, on a FileStore in a temporary MEM_HOME: items go in through `mem import` of
 * a mem.export file (times and threads kept) or one memory_add each, as the set says;
 * questions go through memory_search.
 */
export const memOperations: RetrieverKind = memThroughOperations('mem (import or memory_add, then memory_search)')

/**
 * {@link memOperations} with meaning on: once loaded, every fact is embedded (`mem embed`'s
 * path), then questions go through memory_search, which blends words and meaning. `embedder`
 * is shared by every haystack's store, so its close is the caller's.
 */
export function memWithMeaning(embedder: Embedder): RetrieverKind {
  return memThroughOperations('mem with meaning (then mem embed)', embedder)
}

function memThroughOperations(name: string, embedder?: Embedder): RetrieverKind {
  return {
    name,
    async open() {
      const home = mkdtempSync(path.join(tmpdir(), 'mem-recall-'))
      // A store closes its meaning, and so its embedder: this one is the run's, closed once at the end.
      const shared = embedder && {
        id: embedder.id,
        embed: (t: readonly string[]) => embedder.embed(t),
        close: async () => {},
      }
      const meaning = shared && new Meaning(shared, {longLived: false})
      const ctx: OperationContext = {store: new FileStore(home, {meaning}), defaultAgent: AGENT}
      return {
        async load(docs, how) {
          const ids = await loadDocs(ctx, docs, how)
          if (meaning) await ctx.store.embedPending(AGENT)
          return ids
        },
        async search(query, limit) {
          const out = await runOperation(memorySearch, ctx, {agent_id: AGENT, query, limit})
          return out.facts.map((f) => ({id: f.id, content: f.content, context: f.context_for !== undefined}))
        },
        async close() {
          await ctx.store.close()
          rmSync(home, {recursive: true, force: true})
        },
      }
    },
  }
}

/** Stores a haystack's items through mem import (times and threads kept) or one memory_add each. */
async function loadDocs(ctx: OperationContext, docs: readonly Doc[], how: RecallSet['load']): Promise<string[]> {
  if (how === 'add') {
    const ids: string[] = []
    // allow_duplicate: a set may say the same thing twice, and each item needs an id of its own.
    for (const doc of docs)
      ids.push((await runOperation(memoryAdd, ctx, {content: doc.content, allow_duplicate: true})).fact_id)
    return ids
  }
  const ids = docs.map((doc) => newId(Date.parse(doc.createdAt)))
  const lines = [
    JSON.stringify({type: 'header', format: EXPORT_FORMAT, version: EXPORT_VERSION}),
    ...docs.map((doc, i) =>
      JSON.stringify({
        type: 'fact',
        agent_id: AGENT,
        id: ids[i],
        content: doc.content,
        tags: [],
        created_at: doc.createdAt,
        thread: doc.thread,
      }),
    ),
  ]
  const report = await importRecords(ctx, {text: lines.join('\n') + '\n'})
  if (report.added.facts !== docs.length)
    throw new Error(
      `import added ${report.added.facts} of ${docs.length} facts: ${JSON.stringify(report.skipped.slice(0, 3))}`,
    )
  return ids
}

/**
 * mem's index driven directly, fed as the operations feed the store (times and threads on
 * import; the time of the run and no thread on add): fast enough to switch each ranking
 * feature off in turn.
 */
export function memIndex(name: string, tuning: Partial<Tuning> = {}, embedder?: Embedder): RetrieverKind {
  return {
    name,
    async open() {
      const index = new FactIndex(tuning)
      const content = new Map<string, string>()
      let vectors: VectorIndex | undefined
      return {
        async load(docs, how) {
          const now = Date.now()
          const ids = docs.map((doc, i) => {
            // Zero-padded so that id order is insertion order, like the store's ULIDs.
            const id = String(i).padStart(8, '0')
            const fact =
              how === 'add'
                ? {created_at: new Date(now + i).toISOString()}
                : {created_at: doc.createdAt, thread: doc.thread}
            index.add({id, content: doc.content, tags: [], ...fact})
            content.set(id, doc.content)
            return id
          })
          if (embedder) {
            const made = await embedder.embed(docs.map((d) => d.content))
            vectors = new VectorIndex(made[0]!.length)
            made.forEach((vector, i) => vectors!.add(ids[i]!, vector))
          }
          return ids
        },
        async search(query, limit) {
          const dense = vectors && vectors.nearest((await embedder!.embed([query]))[0]!, NEAREST)
          return index
            .search(query, {limit, dense})
            .map((h) => ({id: h.id, content: content.get(h.id)!, context: h.contextFor !== undefined}))
        },
        async close() {},
      }
    },
  }
}

/** As many facts nearest in meaning as the search layer blends (src/index/search-layer.ts). */
const NEAREST = 50

/** Plain BM25 with MiniSearch's defaults (no stopwords, stems, prefixes or typos): the baseline. */
export const plainBm25 = miniSearch('baseline: plain BM25 (MiniSearch defaults)', {})

/**
 * The baseline the sets' READMEs quote for the halves kept aside: MiniSearch's BM25 with English
 * stopwords, prefixes and typos (fuzzy 0.2). Measured here too, so that a figure on a development
 * half can be set beside the same baseline's figure on the half kept aside.
 */
export const tunedBm25 = miniSearch('baseline: BM25 with stopwords, prefixes and typos (MiniSearch)', {
  processTerm: (term: string) => (ENGLISH_STOPWORDS.has(term.toLowerCase()) ? null : term.toLowerCase()),
  searchOptions: {prefix: true, fuzzy: 0.2},
})

function miniSearch(name: string, options: Partial<Options<{id: string; content: string}>>): RetrieverKind {
  return {
    name,
    async open() {
      const mini = new MiniSearch<{id: string; content: string}>({
        ...options,
        fields: ['content'],
        storeFields: ['content'],
      })
      return {
        async load(docs) {
          return docs.map((doc, i) => {
            const id = String(i)
            mini.add({id, content: doc.content})
            return id
          })
        },
        async search(query, limit) {
          return mini
            .search(query)
            .slice(0, limit)
            .map((r) => ({id: String(r.id), content: String(r.content), context: false}))
        },
        async close() {},
      }
    },
  }
}
