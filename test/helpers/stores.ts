import {freshDatabase} from './postgres.js'

/** A store the end-to-end suites run against, as the environment that selects it. */
export interface StoreUnderTest {
  name: string
  env(): Promise<Record<string, string>>
}

/** The files (no MEM_STORE), and PostgreSQL (a fresh database on the test server, test/helpers/postgres.ts). */
export const STORES: StoreUnderTest[] = [
  {name: 'files', env: async () => ({})},
  {name: 'PostgreSQL', env: async () => ({MEM_STORE: await freshDatabase()})},
]

/**
 * Selects `store` for every `mem` process the calling suite starts: they inherit this
 * process's environment (test/helpers/mem.ts). Call it first inside `describe`, before the
 * hooks that start servers, so they run after it.
 */
export function useStore(store: StoreUnderTest): void {
  let saved: string | undefined
  before(async () => {
    saved = process.env.MEM_STORE
    delete process.env.MEM_STORE
    Object.assign(process.env, await store.env())
  })
  after(() => {
    if (saved === undefined) delete process.env.MEM_STORE
    else process.env.MEM_STORE = saved
  })
}
