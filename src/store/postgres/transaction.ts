import type pg from 'pg'

/**
 * Runs `work` in one transaction on a connection of `pool`, committed when it returns and rolled
 * back when it throws. `failed` turns what went wrong into the error to throw; it is told whether
 * the COMMIT had been sent, since one whose answer never came may have saved.
 */
export async function inTransaction<T>(
  pool: pg.Pool,
  begin: string,
  work: (client: pg.PoolClient) => Promise<T>,
  failed: (error: unknown, committing: boolean) => unknown = (error) => error,
): Promise<T> {
  let client: pg.PoolClient
  try {
    client = await pool.connect()
  } catch (error) {
    throw failed(error, false)
  }
  let committing = false
  let broken = false
  // A connection that breaks between two statements emits 'error' on the client, which would
  // end the process without a listener (node-postgres leaves that to whoever checked it out).
  const onError = () => {
    broken = true
  }
  client.on('error', onError)
  try {
    await client.query(begin)
    const result = await work(client)
    committing = true
    await client.query('COMMIT')
    return result
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {
      broken = true
    })
    throw failed(error, committing)
  } finally {
    client.off('error', onError)
    // A broken connection is dropped, not handed to the next caller.
    client.release(broken)
  }
}
