// pgpass ships no types: the functions mem calls, as its README describes them.
declare module 'pgpass' {
  interface ConnectionInfo {
    host?: string
    port?: number | string
    database?: string
    user?: string
  }
  function pgpass(info: ConnectionInfo, callback: (password: string | undefined) => void): void
  namespace pgpass {
    /** Where its warnings go (stderr by default); null for nowhere. Returns the previous stream. */
    function warnTo(stream: NodeJS.WritableStream | null): NodeJS.WritableStream | null
  }
  export default pgpass
}
