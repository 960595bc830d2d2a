/**
 * The SQLite baseline's MCP server (benchmark code only): `node server.cjs <database>` over
 * stdio, on the same MCP SDK as `mem mcp serve`, with two tools shaped like mem's:
 * memory_search {query, limit?} and memory_add {content, tags?}. Each answers as mem's do, the
 * result as prose in `content` and as `structuredContent` that the declared output schema
 * describes (the client checks it against that schema, as it checks mem's).
 */
import {Server, type CallToolResult, type Tool} from '@modelcontextprotocol/server'
import {serveStdio} from '@modelcontextprotocol/server/stdio'

import {AGENT, SqliteFacts} from './store.js'

const hit = {
  type: 'object',
  properties: {
    id: {type: 'string'},
    content: {type: 'string'},
    tags: {type: 'array', items: {type: 'string'}},
    created_at: {type: 'string'},
    score: {type: 'number'},
  },
  required: ['id', 'content', 'tags', 'created_at', 'score'],
}

const TOOLS: Tool[] = [
  {
    name: 'memory_search',
    description: 'Find stored facts that share a word with a question or keywords, ranked by BM25 relevance.',
    inputSchema: {
      type: 'object' as const,
      properties: {query: {type: 'string'}, limit: {type: 'integer', minimum: 1, maximum: 100}},
      required: ['query'],
    },
    outputSchema: {
      type: 'object' as const,
      properties: {
        agent_id: {type: 'string'},
        query: {type: 'string'},
        count: {type: 'number'},
        facts: {type: 'array', items: hit},
      },
      required: ['agent_id', 'query', 'count', 'facts'],
    },
  },
  {
    name: 'memory_add',
    description: 'Store one durable fact worth remembering across sessions.',
    inputSchema: {
      type: 'object' as const,
      properties: {content: {type: 'string'}, tags: {type: 'array', items: {type: 'string'}}},
      required: ['content'],
    },
    outputSchema: {
      type: 'object' as const,
      properties: {
        agent_id: {type: 'string'},
        stored: {type: 'boolean'},
        fact_id: {type: 'string'},
        duplicate: {type: 'boolean'},
      },
      required: ['agent_id', 'stored', 'fact_id', 'duplicate'],
    },
  },
]

function failure(text: string): CallToolResult {
  return {isError: true, content: [{type: 'text', text}]}
}

function search(store: SqliteFacts, args: Record<string, unknown>): CallToolResult {
  const {query, limit = 10} = args
  if (typeof query !== 'string' || query.trim() === '') return failure('query: must be a non-empty string')
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > 100)
    return failure('limit: must be a whole number between 1 and 100')
  const facts = store.search(query, limit)
  const payload = {agent_id: AGENT, query, count: facts.length, facts}
  const lines = facts.map((f, i) => `${i + 1}. ${f.content} (id ${f.id})`)
  const text =
    facts.length === 0
      ? `No facts found for "${query}".`
      : [`Found ${facts.length} facts for "${query}":`, ...lines].join('\n')
  return {content: [{type: 'text', text}], structuredContent: payload}
}

function add(store: SqliteFacts, args: Record<string, unknown>): CallToolResult {
  const {content, tags = []} = args
  if (typeof content !== 'string' || content.trim() === '') return failure('content: must be a non-empty string')
  if (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string'))
    return failure('tags: must be an array of strings')
  const {id, duplicate} = store.add({content, tags: tags as string[]})
  const payload = {agent_id: AGENT, stored: true, fact_id: id, duplicate}
  const text = duplicate ? `Fact ${id} already says this; nothing new was stored.` : `Stored fact ${id}.`
  return {content: [{type: 'text', text}], structuredContent: payload}
}

async function main(database: string | undefined): Promise<void> {
  if (database === undefined) throw new Error('usage: server <database>')
  const store = new SqliteFacts(database)
  const build = (): Server => {
    const server = new Server({name: 'sqlite-fts5-baseline', version: '1.0.0'}, {capabilities: {tools: {}}})
    server.setRequestHandler('tools/list', async () => ({tools: TOOLS}))
    server.setRequestHandler('tools/call', async (request) => {
      const args = request.params.arguments ?? {}
      if (request.params.name === 'memory_search') return search(store, args)
      if (request.params.name === 'memory_add') return add(store, args)
      return failure(`unknown tool "${request.params.name}"`)
    })
    return server
  }
  // As mem's server: both protocol eras from one factory, and the database closed cleanly when
  // the client closes stdin.
  const served = serveStdio(build)
  process.stdin.once('end', () => void served.close().finally(() => store.close()))
}

main(process.argv[2]).catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`)
  process.exit(1)
})
