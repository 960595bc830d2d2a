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
 * The URL checked for what selects PostgreSQL and for a form node-postgres can read, or a clear
 * error that does not repeat it (it may hold a password). `source` names where it came from
 * (MEM_STORE, --to). A `#fragment`, which node-postgres ignores, is dropped, so it never reaches
 * a message or a client's config file. The rest is node-postgres's to read when it connects: it
 * takes more forms than a WHATWG URL does (postgres://user:password@/db?host=/run/postgresql, say).
 */
export function checkPostgresUrl(value: string, source = 'MEM_STORE'): string {
  if (!isPostgresUrl(value))
    throw new MemError(
      'invalid_input',
      `${source} must be a PostgreSQL URL (postgres://user@host/database)${source === 'MEM_STORE' ? ' or unset for the files under MEM_HOME' : ''}; ${LEFT_OUT}`,
    )
  const problem = formProblem(value)
  if (problem !== undefined)
    throw new MemError(
      'invalid_input',
      `${source} is not a PostgreSQL URL mem can read: ${problem}; the form is postgres://user@host:5432/database (${LEFT_OUT})`,
    )
  return withoutFragment(value)
}

const LEFT_OUT = 'its value was left out of this message, as it may hold a password'

/** The URL up to its `#`, if any. */
export function withoutFragment(value: string): string {
  const cut = value.indexOf('#')
  return cut === -1 ? value : value.slice(0, cut)
}

/**
 * What keeps node-postgres from reading the URL, in words that repeat none of it; undefined when
 * it reads. It reads it as pg-connection-string's parse does: a WHATWG URL, after encoding spaces
 * and stray % signs, with a stand-in host when none is given (postgres://user@/db).
 */
function formProblem(value: string): string | undefined {
  const fragment = value.indexOf('#')
  if (fragment !== -1 && value.indexOf('@', fragment) !== -1)
    return 'a # comes before the @ that ends the user and password (a # in a password must be written %23)'
  const url = withoutFragment(value)
  if (readsAsUrl(url)) return undefined
  const rest = url.replace(/^postgres(ql)?:\/\//i, '')
  const authority = rest.split(/[/?]/, 1)[0]!
  // An @ after the host: the user or password holds a / or ? that ended the host early.
  const hint = rest.indexOf('@', authority.length) === -1 ? '' : PERCENT_HINT
  const host = authority.slice(authority.lastIndexOf('@') + 1)
  if (host.startsWith('['))
    return `the address in brackets is not an IPv6 address, or what follows it is not ":" and a port${hint}`
  const port = host.includes(':') ? host.slice(host.lastIndexOf(':') + 1) : ''
  if (!/^\d*$/.test(port)) return `the port (after the host's ":") is not a number${hint}`
  if (Number(port) > 65_535) return `the port is above 65535${hint}`
  return `the host name holds a character a host name cannot${hint}`
}

const PERCENT_HINT =
  ' (a / or ? in a user name or password must be written %2F or %3F; or keep the password in ~/.pgpass)'

function readsAsUrl(value: string): boolean {
  const text = / |%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(value) ? encodeURI(value).replace(/%25(\d\d)/g, '%$1') : value
  return URL.canParse(text, 'postgres://base') || URL.canParse(text.replace('@/', '@___DUMMY___/'), 'postgres://base')
}

const USER_PASSWORD = /^(postgres(?:ql)?:\/\/[^:@/?#]*:)([^/?#]*)(@)/i
const PASSWORD_PARAM = /([?&]password=)([^&#]*)/gi

/**
 * The URL with its password (in the user part or a `password` parameter) replaced and its
 * `#fragment` left out, for messages.
 */
export function redactUrl(value: string): string {
  return withoutFragment(value).replace(USER_PASSWORD, '$1***$3').replace(PASSWORD_PARAM, '$1***')
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
 * The URL with its password taken out (from the user part, or a `password` parameter) and its
 * `#fragment` left out, for writing where it is kept: a client's config file. The rest, user
 * included, stays as given.
 */
export function withoutPassword(value: string): string {
  const base = withoutFragment(value).replace(USER_PASSWORD, (_all, head: string) => {
    const scheme = /^postgres(?:ql)?:\/\//i.exec(head)![0]
    const name = head.slice(scheme.length, -1)
    return name === '' ? scheme : `${scheme}${name}@`
  })
  const q = base.indexOf('?')
  if (q === -1) return base
  const kept = base
    .slice(q + 1)
    .split('&')
    .filter((pair) => !/^password=/i.test(pair))
  return `${base.slice(0, q)}${kept.length > 0 ? `?${kept.join('&')}` : ''}`
}
