import {readFileSync} from 'node:fs'
import {isIP} from 'node:net'

import {MemError} from '../../errors.js'

/** 127.0.0.0/8, ::1 and the name localhost: reachable from this machine only. */
export function isLoopback(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase()
  if (bare === 'localhost' || bare === '::1') return true
  return isIP(bare) === 4 && bare.startsWith('127.')
}

/**
 * Listening beyond loopback is a choice the user states (--allow-remote), and tokens must
 * not cross the network in clear: TLS here (--tls-cert/--tls-key) or at a proxy (--tls-proxy).
 */
export function checkExposure(options: {host: string; allowRemote: boolean; tls: boolean; tlsProxy: boolean}): void {
  if (isLoopback(options.host)) return
  if (!options.allowRemote) {
    throw new MemError(
      'invalid_input',
      `--host ${options.host} can be reached from other machines; add --allow-remote to mean it, or use --host 127.0.0.1`,
    )
  }
  if (!options.tls && !options.tlsProxy) {
    throw new MemError(
      'invalid_input',
      `--host ${options.host} with --allow-remote would send tokens in clear: add --tls-cert FILE --tls-key FILE, or --tls-proxy when a reverse proxy in front terminates TLS`,
    )
  }
}

export function readTls(certFile: string, keyFile: string): {cert: Buffer; key: Buffer} {
  const read = (file: string, flag: string) => {
    try {
      return readFileSync(file)
    } catch (error) {
      throw new MemError(
        'invalid_input',
        `${flag} ${file}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`,
      )
    }
  }
  return {cert: read(certFile, '--tls-cert'), key: read(keyFile, '--tls-key')}
}
