/**
 * The few ANSI styles the everyday output uses, written by hand: a colour library (or even
 * ink) would cost more to load than a whole `mem search`.
 */
const CODES = {
  bold: [1, 22],
  dim: [2, 22],
  underline: [4, 24],
  red: [31, 39],
  green: [32, 39],
  yellow: [33, 39],
  blue: [34, 39],
  magenta: [35, 39],
  cyan: [36, 39],
} as const

export type Style = keyof typeof CODES

export function style(name: Style | Style[], text: string): string {
  if (text === '') return text
  const names = Array.isArray(name) ? name : [name]
  return names.reduceRight((inner, n) => `\u001B[${CODES[n][0]}m${inner}\u001B[${CODES[n][1]}m`, text)
}

/** Removes what {@link style} adds, so widths can be measured on the visible text. */
export function unstyled(text: string): string {
  // eslint-disable-next-line no-control-regex -- escape sequences are what is being removed
  return text.replace(/\u001B\[\d+m/g, '')
}

/**
 * Colour only for a person at a terminal: never when stdout is a pipe or a file, never under
 * NO_COLOR (any non-empty value, per no-color.org), never for --json.
 */
export function wantsStyle(stream: {isTTY?: boolean}, env: NodeJS.ProcessEnv): boolean {
  const noColor = env.NO_COLOR
  return stream.isTTY === true && (noColor === undefined || noColor === '') && env.TERM !== 'dumb'
}
