import {MemError} from '../../errors.js'

/**
 * What MEM_STORE may say. Only a PostgreSQL URL selects another store; anything else is refused
 * rather than quietly falling back to the files, which would split one memory in two.
 *
 * Nothing here imports `pg`: choosing the store must cost the file store's commands nothing.
 */
export function isPostgresUrl(value: string): boolean {
  return /^postgres(ql)?:\/\//i.test(value)
}

/**
 * The URL checked for what selects PostgreSQL, or a clear error that does not repeat it (it may
 * hold a password). The rest is node-postgres's to read when it connects: it takes more forms
 * than a WHATWG URL does (postgres://user:password@/db?host=/run/postgresql, say).
 */
export function checkPostgresUrl(value: string): string {
  if (!isPostgresUrl(value))
    throw new MemError(
      'invalid_input',
      'MEM_STORE must be a PostgreSQL URL (postgres://user@host/database) or unset for the files under MEM_HOME; its value was left out of this message, as it may hold a password',
    )
  return value
}

const USER_PASSWORD = /^(postgres(?:ql)?:\/\/[^:@/?#]*:)([^/?#]*)(@)/i
const PASSWORD_PARAM = /([?&]password=)([^&#]*)/gi

/** The URL with its password (in the user part or a `password` parameter) replaced, for messages. */
export function redactUrl(value: string): string {
  return value.replace(USER_PASSWORD, '$1***$3').replace(PASSWORD_PARAM, '$1***')
}

/** The password the URL itself carries, if any, so it can be scrubbed from any message that might echo it. */
export function urlPassword(value: string): string | undefined {
  const found = USER_PASSWORD.exec(value)?.[2] ?? new RegExp(PASSWORD_PARAM.source, 'i').exec(value)?.[2]
  if (found === undefined || found === '') return undefined
  try {
    return decodeURIComponent(found)
  } catch {
    return found
  }
}

/** `text` with every secret in `secrets` (the URL's password, PGPASSWORD) replaced. */
export function scrub(text: string, secrets: readonly (string | undefined)[]): string {
  let out = text
  for (const secret of secrets) if (secret !== undefined && secret.length > 0) out = out.split(secret).join('***')
  return out
}

/** The URL of MEM_STORE, for the commands that work on the database only. */
export function postgresUrl(command: string, env: NodeJS.ProcessEnv = process.env): string {
  const selected = env.MEM_STORE?.trim()
  if (!selected)
    throw new MemError(
      'invalid_input',
      `${command} works on the PostgreSQL database MEM_STORE names, and MEM_STORE is not set; set it to a postgres:// URL (see docs/team.md)`,
    )
  return checkPostgresUrl(selected)
}

/**
 * The URL with its password taken out (from the user part, or a `password` parameter), for
 * writing where it is kept: a client's config file. The rest, user included, stays as given.
 */
export function withoutPassword(value: string): string {
  const user = value.replace(USER_PASSWORD, (_all, head: string) => {
    const scheme = /^postgres(?:ql)?:\/\//i.exec(head)![0]
    const name = head.slice(scheme.length, -1)
    return name === '' ? scheme : `${scheme}${name}@`
  })
  const cut = user.indexOf('#')
  const base = cut === -1 ? user : user.slice(0, cut)
  const hash = cut === -1 ? '' : user.slice(cut)
  const q = base.indexOf('?')
  if (q === -1) return user
  const kept = base
    .slice(q + 1)
    .split('&')
    .filter((pair) => !/^password=/i.test(pair))
  return `${base.slice(0, q)}${kept.length > 0 ? `?${kept.join('&')}` : ''}${hash}`
}
