// pgpass ships no types: the one function mem calls, as its README describes it.
declare module 'pgpass' {
  interface ConnectionInfo {
    host?: string
    port?: number | string
    database?: string
    user?: string
  }
  function pgpass(info: ConnectionInfo, callback: (password: string | undefined) => void): void
  export default pgpass
}
