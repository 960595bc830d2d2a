import assert from 'node:assert/strict'

import {EndpointEmbedder} from '../../src/meaning/endpoint-embedder.js'
import {Meaning} from '../../src/meaning/meaning.js'
import {FileStore} from '../../src/store/file/file-store.js'
import {startEmbeddingServer, type EmbeddingServer} from '../helpers/embedding-server.js'
import {tempHome} from '../helpers/mem.js'
import {renderBrowser, type BrowserHarness} from './render-browser.js'

/** The browser with meaning on: a fact found by meaning alone is marked, and counted apart from the matches. */
describe('mem browse with meaning on (ink app over a real store)', () => {
  let server: EmbeddingServer
  let home: ReturnType<typeof tempHome>
  let ui: BrowserHarness | undefined

  before(async () => {
    server = await startEmbeddingServer()
  })
  after(async () => {
    await server.close()
  })
  beforeEach(async () => {
    home = tempHome()
    const meaning = new Meaning(new EndpointEmbedder({url: server.url, model: 'bag-of-words'}), {longLived: false})
    const store = new FileStore(home.home, {meaning})
    await store.addFact('alice', {content: 'Bob drinks a double espresso every morning', tags: []})
    await store.addFact('alice', {content: 'The coffee machine is descaled on Mondays', tags: []})
    await store.addFact('alice', {content: 'Deploys happen on Tuesdays', tags: []})
    assert.deepEqual(await store.embedPending('alice'), {embedded: 3, pending: 0})
    await store.close()
  })
  afterEach(() => {
    ui?.unmount()
    ui = undefined
    home.cleanup()
  })

  it('marks the fact meaning alone found, and counts it apart from the matches', async () => {
    const meaning = new Meaning(new EndpointEmbedder({url: server.url, model: 'bag-of-words'}), {longLived: false})
    ui = renderBrowser({home: home.home, agent: 'alice', meaning})
    await ui.waitFor('3 facts')
    await ui.press('/', 'c', 'o', 'f', 'f', 'e', 'e', ' ')
    const frame = await ui.waitFor('1 match (+1 by meaning) of 3 facts', 'the search with one fact by meaning')
    const marked = frame.split('\n').find((l) => l.includes('espresso')) ?? ''
    assert.match(marked, /≈ Bob drinks a double espresso/, frame)
    const matched = frame.split('\n').find((l) => l.includes('coffee machine')) ?? ''
    assert.doesNotMatch(matched, /≈/, frame)
    assert.ok(frame.indexOf('coffee machine') < frame.indexOf('espresso'), `the word match first:\n${frame}`)
    await ui.store.close()
  })
})
