/**
 * Where a text stops being JSON, as a line and column a person can open in an editor. V8 gives
 * an offset for some syntax errors ("… in JSON at position 7") and none for others (an
 * unexpected token, which it reports by quoting the text instead), so when it gives none the
 * text is scanned here. Nothing of the text is ever quoted: it may be stored memory.
 */
export function describeJsonError(text: string, v8Message: string): string {
  const reported = /at position (\d+)/.exec(v8Message)?.[1]
  const offset = reported === undefined ? firstErrorOffset(text) : Number(reported)
  if (offset === undefined) return 'it is not valid JSON'
  const where = lineAndColumn(text, offset)
  if (offset >= text.length) return `it is not valid JSON: it ends too early (line ${where})`
  return `it is not valid JSON at line ${where}${trailingComma(text, offset) ? ' (a comma before a closing bracket)' : ''}`
}

function lineAndColumn(text: string, offset: number): string {
  const before = text.slice(0, offset)
  const line = before.split('\n').length
  const column = Array.from(before.slice(before.lastIndexOf('\n') + 1)).length + 1
  return `${line}, column ${column}`
}

function trailingComma(text: string, offset: number): boolean {
  if (text[offset] !== '}' && text[offset] !== ']') return false
  return text.slice(0, offset).trimEnd().endsWith(',')
}

/** The offset of the first character that cannot continue a JSON text; undefined if it parses (or nests too deep to scan). */
export function firstErrorOffset(text: string): number | undefined {
  const scanner = new Scanner(text)
  try {
    scanner.document()
    return undefined
  } catch (error) {
    if (error instanceof SyntaxAt) return error.offset
    return undefined
  }
}

class SyntaxAt {
  constructor(readonly offset: number) {}
}

const LITERALS = ['true', 'false', 'null']
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
// A string's characters: no control characters, and a backslash only before a valid escape.
// eslint-disable-next-line no-control-regex -- JSON forbids raw control characters in strings, so the scan must name them
const STRING_BODY = /(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*/y

class Scanner {
  private at = 0
  constructor(private readonly text: string) {}

  document(): void {
    this.value()
    this.space()
    if (this.at < this.text.length) throw new SyntaxAt(this.at)
  }

  private value(): void {
    this.space()
    const c = this.text[this.at]
    if (c === '{') return this.sequence('}', () => this.member())
    if (c === '[') return this.sequence(']', () => this.value())
    if (c === '"') return this.string()
    const literal = LITERALS.find((word) => this.text.startsWith(word, this.at))
    if (literal) {
      this.at += literal.length
      return
    }
    NUMBER.lastIndex = this.at
    if (!NUMBER.test(this.text)) throw new SyntaxAt(this.at)
    this.at = NUMBER.lastIndex
  }

  /** An object or array: items separated by commas, with nothing after the last one. */
  private sequence(close: string, item: () => void): void {
    this.at++
    this.space()
    if (this.text[this.at] === close) {
      this.at++
      return
    }
    for (;;) {
      item()
      this.space()
      const c = this.text[this.at]
      this.at++
      if (c === close) return
      if (c !== ',') throw new SyntaxAt(this.at - 1)
    }
  }

  private member(): void {
    this.space()
    if (this.text[this.at] !== '"') throw new SyntaxAt(this.at)
    this.string()
    this.space()
    if (this.text[this.at] !== ':') throw new SyntaxAt(this.at)
    this.at++
    this.value()
  }

  private string(): void {
    STRING_BODY.lastIndex = this.at + 1
    STRING_BODY.test(this.text)
    this.at = STRING_BODY.lastIndex
    if (this.text[this.at] !== '"') throw new SyntaxAt(this.at)
    this.at++
  }

  private space(): void {
    while (this.at < this.text.length && ' \t\n\r'.includes(this.text[this.at]!)) this.at++
  }
}
