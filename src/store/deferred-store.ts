import type {Store} from './store.js'

/**
 * A store opened on its first use: choosing PostgreSQL costs a command nothing until it
 * touches the data (`mem --help` connects to nothing), and the driver is loaded only then.
 * An open that fails (the database is down) is tried again by the next call, so a server
 * serves again once the database is back.
 */
export class DeferredStore implements Store {
  private opened?: Promise<Store>
  private closed = false

  constructor(private readonly open: () => Promise<Store>) {}

  private store(): Promise<Store> {
    if (this.closed) return Promise.reject(new Error('the store was closed'))
    this.opened ??= this.open().catch((error: unknown) => {
      this.opened = undefined
      throw error
    })
    return this.opened
  }

  addFact: Store['addFact'] = async (...args) => (await this.store()).addFact(...args)
  searchFacts: Store['searchFacts'] = async (...args) => (await this.store()).searchFacts(...args)
  getFact: Store['getFact'] = async (...args) => (await this.store()).getFact(...args)
  supersede: Store['supersede'] = async (...args) => (await this.store()).supersede(...args)
  deleteFact: Store['deleteFact'] = async (...args) => (await this.store()).deleteFact(...args)
  listFacts: Store['listFacts'] = async (...args) => (await this.store()).listFacts(...args)
  getFacts: Store['getFacts'] = async (...args) => (await this.store()).getFacts(...args)
  changesSince: Store['changesSince'] = async (...args) => (await this.store()).changesSince(...args)
  eachFact: Store['eachFact'] = async (...args) => (await this.store()).eachFact(...args)
  saveCheckpoint: Store['saveCheckpoint'] = async (...args) => (await this.store()).saveCheckpoint(...args)
  getCheckpoint: Store['getCheckpoint'] = async (...args) => (await this.store()).getCheckpoint(...args)
  listCheckpoints: Store['listCheckpoints'] = async (...args) => (await this.store()).listCheckpoints(...args)
  listAgents: Store['listAgents'] = async () => (await this.store()).listAgents()
  agentsHolding: Store['agentsHolding'] = async (...args) => (await this.store()).agentsHolding(...args)
  importRecords: Store['importRecords'] = async (...args) => (await this.store()).importRecords(...args)
  embedPending: Store['embedPending'] = async (...args) => (await this.store()).embedPending(...args)

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    const opened = this.opened
    if (opened === undefined) return
    const store = await opened.catch(() => undefined)
    await store?.close()
  }
}
