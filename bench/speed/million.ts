import {mem, nodeBaseline} from './cold.js'
import {FactGenerator} from './facts.js'
import {seedAgent} from './seed.js'
import {ms, summarize, table, type Row} from './stats.js'
import {Server} from './warm.js'

const AGENTS = 100
const PER_AGENT = 10_000
const COLD_SAMPLE = 10

const agentName = (i: number): string => `agent-${String(i).padStart(3, '0')}`

interface Hit {
  id: string
  content: string
}

/**
 * 1,000,000 facts across 100 agents: every operation, cold from a shell and warm through one
 * server that serves all the agents, must still work. Returns a Markdown report.
 */
export async function runMillion(home: string, log: (text: string) => void): Promise<string> {
  const started = performance.now()
  for (let i = 0; i < AGENTS; i++) seedAgent(home, agentName(i), PER_AGENT, 1_000_000 + i)
  const seeded = performance.now() - started
  log(`1,000,000 facts seeded across ${AGENTS} agents in ${ms(seeded)} ms (${home})`)
  const gen = new FactGenerator(7)
  const rows: Row[] = []

  // Cold, a sample of agents: each operation once per agent, interleaved with the baseline.
  const cold: Record<string, number[]> = {search: [], add: [], 'reflect update': [], save: [], resume: []}
  const base: number[] = []
  for (let s = 0; s < COLD_SAMPLE; s++) {
    const agent = agentName(Math.floor((s * AGENTS) / COLD_SAMPLE))
    mem(home, agent, ['search', '--json', 'warm up the saved index'])
    base.push(nodeBaseline().ms)
    const search = mem(home, agent, ['search', '--json', gen.query()])
    cold.search!.push(search.ms)
    const f = gen.fact()
    const added = mem(home, agent, ['add', '--json', f.content])
    cold.add!.push(added.ms)
    const id = (JSON.parse(added.stdout) as {fact_id: string}).fact_id
    cold['reflect update']!.push(
      mem(home, agent, ['reflect', 'update', '--json', '--fact', id, '--content', `${f.content} (confirmed)`]).ms,
    )
    cold.save!.push(mem(home, agent, ['save', '--json', '--state', JSON.stringify({step: s, todo: ['bench']})]).ms)
    cold.resume!.push(mem(home, agent, ['resume', '--json']).ms)
  }
  const baseline = summarize(base)
  for (const [op, samples] of Object.entries(cold)) {
    rows.push({
      what: `cold \`mem ${op}\` (one agent of 100)`,
      facts: PER_AGENT,
      summary: summarize(samples),
      baseline,
      baselineName: '`node -e 0`',
    })
  }
  log('million: cold runs done')

  // Warm: one server, every agent in turn.
  const server = await Server.start(home, agentName(0))
  const firstTouch: number[] = []
  const search: number[] = []
  const add: number[] = []
  const other: Record<string, number[]> = {'memory_reflect update': [], checkpoint_save: [], checkpoint_resume: []}
  const ping: number[] = []
  let found = 0
  for (let i = 0; i < AGENTS; i++) {
    const agent_id = agentName(i)
    firstTouch.push((await server.call('memory_search', {agent_id, query: gen.query()})).ms)
  }
  log('million: every agent touched once')
  for (let round = 0; round < 2; round++) {
    for (let i = 0; i < AGENTS; i++) {
      const agent_id = agentName(i)
      ping.push(await server.ping())
      const s = await server.call('memory_search', {agent_id, query: gen.query()})
      search.push(s.ms)
      const f = gen.fact()
      add.push((await server.call('memory_add', {agent_id, content: f.content, tags: f.tags})).ms)
      if (round === 0 && i % 10 === 0) {
        const hit = (s.result.structuredContent as {facts: Hit[]}).facts[0]
        if (hit) {
          other['memory_reflect update']!.push(
            (
              await server.call('memory_reflect', {
                agent_id,
                action: 'update',
                fact_id: hit.id,
                content: `${hit.content} (still true)`,
              })
            ).ms,
          )
          const again = await server.call('memory_search', {agent_id, query: `${hit.content} (still true)`})
          if (
            (again.result.structuredContent as {facts: Hit[]}).facts.some(
              (h) => h.content === `${hit.content} (still true)`,
            )
          )
            found++
        }
        other.checkpoint_save!.push((await server.call('checkpoint_save', {agent_id, state: {round, agent: i}})).ms)
        other.checkpoint_resume!.push((await server.call('checkpoint_resume', {agent_id})).ms)
      }
    }
  }
  const peak = server.peakRssMiB()
  await server.close()
  const pingSummary = summarize(ping)
  rows.push({
    what: '`mem mcp serve`: first memory_search per agent (loads its index)',
    facts: PER_AGENT,
    summary: summarize(firstTouch),
    baseline: pingSummary,
    baselineName: 'MCP ping',
  })
  rows.push({
    what: '`mem mcp serve` warm: memory_search, agents round robin',
    facts: PER_AGENT,
    summary: summarize(search),
    baseline: pingSummary,
    baselineName: 'MCP ping',
  })
  rows.push({
    what: '`mem mcp serve` warm: memory_add, agents round robin',
    facts: PER_AGENT,
    summary: summarize(add),
    baseline: pingSummary,
    baselineName: 'MCP ping',
  })
  for (const [op, samples] of Object.entries(other)) {
    rows.push({
      what: `\`mem mcp serve\` warm: ${op}`,
      facts: PER_AGENT,
      summary: summarize(samples),
      baseline: pingSummary,
      baselineName: 'MCP ping',
    })
  }
  log('million: warm runs done')

  return [
    `## 1,000,000 facts across ${AGENTS} agents (${PER_AGENT.toLocaleString('en')} each)\n`,
    table(rows),
    '',
    `- seeded in ${ms(seeded)} ms; \`mem mcp serve\` peak RSS ${peak.toFixed(0)} MiB after serving all ${AGENTS} agents`,
    `- updated facts found again by search right after the update: ${found}/${other['memory_reflect update']!.length}`,
  ].join('\n')
}
