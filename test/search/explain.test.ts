import assert from 'node:assert/strict'

import {connectMcp, type McpSession} from '../helpers/mcp.js'
import {mem, tempHome} from '../helpers/mem.js'

const FACTS = [
  {content: 'Deploys go out on Tuesdays after the integration tests pass'},
  {content: 'The kubernetes cluster was deployed on Hetzner', tags: ['infra']},
  {content: 'Carol uses Neovim as her editor'},
  {content: 'Which heater did the landlord pick?', thread: 'flat'},
  {content: 'A Dimplex panel, in the hall', thread: 'flat'},
  {content: '東京タワーの近くでランチを食べました'},
  {content: 'タワーマンションの管理会社'},
]

interface Matched {
  word: string
  how: string
  fact_word: string
}
interface Found {
  content: string
  id: string
  context_for?: string
  matched?: Matched[]
}

/** "Why did this match?": memory_search with explain, over the official client, and mem search --explain. */
describe('search explains its matches (MCP and CLI)', function () {
  let session: McpSession
  let home: string
  let cleanup: () => void

  before(async () => {
    const temp = tempHome()
    home = temp.home
    cleanup = temp.cleanup
    session = await connectMcp(home)
    for (const fact of FACTS) {
      const r = await session.call('memory_add', fact)
      assert.notEqual(r.isError, true)
    }
  })
  after(async () => {
    await session.close()
    cleanup()
  })

  const search = async (args: Record<string, unknown>) => {
    const r = await session.call('memory_search', args)
    assert.notEqual(r.isError, true)
    const text = (r.content[0] as {text: string}).text
    return {facts: (r.structuredContent as {facts: Found[]}).facts, text}
  }

  it('declares matched in the output schema and explain in the input schema', () => {
    const tool = session.tools.find((t) => t.name === 'memory_search')!
    const hit = (tool.outputSchema!.properties!.facts as {items: {properties: Record<string, unknown>}}).items
    assert.ok('matched' in hit.properties)
    assert.ok('explain' in tool.inputSchema.properties!)
  })

  it('says of each hit which query words it matched: exact, stem, prefix or typo, and the word of the fact', async () => {
    const {facts} = await search({query: 'deploys kube infra terrafrom hetznr', explain: true})
    const cluster = facts.find((f) => f.content.startsWith('The kubernetes'))!
    assert.deepEqual(cluster.matched, [
      {word: 'deploys', how: 'stem', fact_word: 'deployed'},
      {word: 'kube', how: 'prefix', fact_word: 'kubernetes'},
      {word: 'infra', how: 'exact', fact_word: 'infra'},
      {word: 'hetznr', how: 'typo', fact_word: 'hetzner'},
    ])
    const deploys = facts.find((f) => f.content.startsWith('Deploys'))!
    assert.deepEqual(deploys.matched, [{word: 'deploys', how: 'exact', fact_word: 'deploys'}])
  })

  it('a hit that came as thread context matched no word and names the fact it came with', async () => {
    const {facts, text} = await search({query: 'heater', explain: true})
    const question = facts.find((f) => f.content.startsWith('Which heater'))!
    const reply = facts.find((f) => f.content.startsWith('A Dimplex'))!
    assert.deepEqual(question.matched, [{word: 'heater', how: 'exact', fact_word: 'heater'}])
    assert.deepEqual(reply.matched, [])
    assert.equal(reply.context_for, question.id)
    assert.match(text, new RegExp(`\\n   matched no word: context for ${question.id}(\\n|$)`))
  })

  it('a Chinese or Japanese word is told as typed where the fact holds it whole, as its pairs where not', async () => {
    const {facts} = await search({query: '東京タワー', explain: true})
    const whole = facts.find((f) => f.content.startsWith('東京タワー'))!
    assert.deepEqual(whole.matched, [{word: '東京タワー', how: 'exact', fact_word: '東京タワー'}])
    const part = facts.find((f) => f.content.startsWith('タワーマンション'))!
    assert.deepEqual(part.matched, [
      {word: 'タワ', how: 'exact', fact_word: 'タワ'},
      {word: 'ワー', how: 'exact', fact_word: 'ワー'},
    ])
  })

  it('puts the explanation under each line of the prose only when asked', async () => {
    const plain = await search({query: 'carol editor'})
    assert.equal(plain.facts[0]!.matched, undefined)
    assert.equal(
      plain.text,
      `Found 1 fact for "carol editor" (agent default):\n1. Carol uses Neovim as her editor (id ${plain.facts[0]!.id})`,
    )
    const explained = await search({query: 'carol editor', explain: true})
    assert.equal(explained.text, `${plain.text}\n   matched carol (exact), editor (exact)`)
  })

  it('mem search --explain prints the same lines, --json carries matched, and without it the output is as before', () => {
    const plain = mem(home, ['search', 'kube', 'deploys'])
    assert.equal(plain.code, 0, plain.stderr)
    assert.doesNotMatch(plain.stdout, /matched/)
    const explained = mem(home, ['search', '--explain', 'kube', 'deploys'])
    assert.equal(explained.code, 0, explained.stderr)
    const lines = explained.stdout.trimEnd().split('\n')
    assert.deepEqual(
      lines.filter((l) => !l.startsWith('   ')),
      plain.stdout.trimEnd().split('\n'),
    )
    assert.ok(lines.includes('   matched kube (prefix: kubernetes), deploys (stem: deployed)'), explained.stdout)
    assert.ok(lines.includes('   matched deploys (exact)'), explained.stdout)
    const json = mem(home, ['search', '--json', '--explain', 'kube'])
    assert.equal(json.code, 0, json.stderr)
    const payload = JSON.parse(json.stdout) as {facts: Found[]}
    assert.deepEqual(payload.facts[0]!.matched, [{word: 'kube', how: 'prefix', fact_word: 'kubernetes'}])
    const noExplain = JSON.parse(mem(home, ['search', '--json', 'kube']).stdout) as {facts: Found[]}
    assert.equal(noExplain.facts[0]!.matched, undefined)
  })
})
