/**
 * The SQLite baseline's command line (benchmark code only): what `mem search --json` and
 * `mem import` are to mem, for the cold-process and import comparisons.
 *
 *   node cli.cjs <database> search --json <words...>   prints {agent_id, query, count, facts}
 *   node cli.cjs <database> import <file>               a `mem export` file, in one transaction
 *
 * bench/speed/sqlite/build.ts compiles it to CommonJS, as mem's own binary is, so neither
 * process pays for Node's ES module loader.
 */
import {readFileSync} from 'node:fs'

import {AGENT, SqliteFacts, type NewFact} from './store.js'

function* factLines(text: string): Generator<NewFact> {
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue
    const record = JSON.parse(line) as {type: string} & NewFact
    if (record.type !== 'fact') continue
    yield {id: record.id, content: record.content, tags: record.tags, created_at: record.created_at}
  }
}

function main(argv: string[]): void {
  const [database, command, ...rest] = argv
  if (database === undefined || command === undefined) throw new Error('usage: cli <database> search|import ...')
  const store = new SqliteFacts(database)
  try {
    if (command === 'search') {
      const query = rest.filter((word) => word !== '--json').join(' ')
      const facts = store.search(query, 10)
      process.stdout.write(`${JSON.stringify({agent_id: AGENT, query, count: facts.length, facts})}\n`)
    } else if (command === 'import') {
      const added = store.addAll(factLines(readFileSync(rest[0]!, 'utf8')))
      process.stdout.write(`${JSON.stringify({added: {facts: added}})}\n`)
    } else throw new Error(`unknown command "${command}": search or import`)
  } finally {
    store.close()
  }
}

main(process.argv.slice(2))
