import {mkdirSync, writeFileSync} from 'node:fs'
import {join} from 'node:path'

import {FACT_SEGMENT} from '../../src/store/file/collections.js'
import {DIR_MODE, FILE_MODE} from '../../src/store/file/durable-file.js'
import {encodeFile} from '../../src/store/file/format.js'
import {newId} from '../../src/store/ids.js'
import {agentDir} from '../../src/store/file/paths.js'
import {FactGenerator} from './facts.js'
import {Server} from './warm.js'

/**
 * Many agents of one fact each, written straight into their segment files (the store's format,
 * without its fsyncs: tens of thousands of durable writes would take minutes and measure
 * nothing new).
 */
export function seedAgents(home: string, count: number): string[] {
  const gen = new FactGenerator(count)
  const names: string[] = []
  for (let i = 0; i < count; i++) {
    const agent = `agent-${i}`
    const folder = join(agentDir(home, agent), FACT_SEGMENT.folder)
    mkdirSync(folder, {recursive: true, mode: DIR_MODE})
    const path = join(folder, '000001.json')
    const fact = gen.fact()
    const record = {id: newId(), content: fact.content, tags: fact.tags, created_at: new Date().toISOString()}
    writeFileSync(path, `${JSON.stringify(encodeFile('mem.facts', [record], path))}\n`, {mode: FILE_MODE})
    names.push(agent)
  }
  return names
}

/**
 * One `mem mcp serve` answering memory_search for every agent in turn, `rounds` times over,
 * a few calls in flight: what a server shared by many agents holds. Returns its peak and final
 * RSS in MiB.
 */
export async function roundRobinRss(
  home: string,
  agents: string[],
  rounds: number,
  inFlight = 8,
): Promise<{peak: number; end: number; calls: number}> {
  const server = await Server.start(home, agents[0]!)
  const gen = new FactGenerator(agents.length + 1)
  let calls = 0
  try {
    for (let round = 0; round < rounds; round++) {
      let next = 0
      const lane = async (): Promise<void> => {
        while (next < agents.length) {
          const agent = agents[next++]!
          await server.call('memory_search', {agent_id: agent, query: gen.query()})
          calls++
        }
      }
      await Promise.all(Array.from({length: inFlight}, lane))
    }
    return {peak: server.peakRssMiB(), end: server.rssMiB(), calls}
  } finally {
    await server.close()
  }
}
