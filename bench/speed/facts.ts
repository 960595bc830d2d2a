/**
 * Synthetic facts that look like what agents store: preferences, decisions, people, places,
 * dates, numbers, with a long tail of rare words (project code names, hostnames) so the
 * index grows the way a real vocabulary does. Seeded: the same seed gives the same facts.
 */

/** mulberry32: small, fast, good enough to spread benchmark data. */
export function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const PEOPLE = [
  'Alice',
  'Bob',
  'Chen',
  'Dana',
  'Emeka',
  'Farah',
  'Gustavo',
  'Hiro',
  'Ingrid',
  'Jamal',
  'Kasia',
  'Luis',
  'Mei',
  'Noor',
  'Olu',
  'Priya',
  'Quentin',
  'Rosa',
  'Sven',
  'Tariq',
  'Uma',
  'Viktor',
  'Wen',
  'Ximena',
  'Yusuf',
  'Zofia',
]
const TOOLS = [
  'pnpm',
  'npm',
  'yarn',
  'bun',
  'docker',
  'kubernetes',
  'terraform',
  'postgres',
  'redis',
  'kafka',
  'vite',
  'webpack',
  'esbuild',
  'eslint',
  'prettier',
  'vitest',
  'mocha',
  'jest',
  'playwright',
  'grafana',
  'prometheus',
  'nginx',
  'caddy',
  'sentry',
  'datadog',
  'github actions',
  'gitlab ci',
  'neovim',
  'vscode',
  'tmux',
  'zsh',
  'fish',
  'rust',
  'go',
  'python',
  'typescript',
  'deno',
  'node',
  'sqlite',
  'duckdb',
]
const PLACES = [
  'Berlin',
  'Lisbon',
  'Nairobi',
  'Osaka',
  'Toronto',
  'Lima',
  'Oslo',
  'Pune',
  'Austin',
  'Krakow',
  'Seoul',
  'Dublin',
  'Cape Town',
  'Montreal',
  'Bogota',
  'Tallinn',
]
const THINGS = [
  'staging database',
  'release branch',
  'design review',
  'on-call rotation',
  'billing service',
  'search index',
  'nightly backup',
  'feature flag',
  'api gateway',
  'mobile app',
  'onboarding doc',
  'quarterly roadmap',
  'incident report',
  'load balancer',
  'data pipeline',
  'test suite',
  'style guide',
  'budget sheet',
  'customer survey',
  'team offsite',
]
const FOODS = [
  'ramen',
  'tacos',
  'sushi',
  'falafel',
  'pierogi',
  'pho',
  'curry',
  'paella',
  'dumplings',
  'jollof rice',
  'empanadas',
  'pad thai',
]
const HOBBIES = [
  'climbing',
  'cycling',
  'chess',
  'pottery',
  'running',
  'sailing',
  'painting',
  'birdwatching',
  'baking',
  'photography',
  'swimming',
  'gardening',
]
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday']
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]
const ADJ = [
  'read-only',
  'flaky',
  'slow',
  'deprecated',
  'critical',
  'experimental',
  'frozen',
  'noisy',
  'stable',
  'private',
  'shared',
  'encrypted',
]
const SYLLABLES = [
  'ka',
  'lo',
  'mi',
  'zu',
  'ren',
  'tor',
  'vex',
  'ani',
  'qua',
  'bel',
  'dro',
  'fin',
  'gal',
  'hex',
  'jin',
  'mor',
  'nys',
  'pol',
  'sar',
  'tem',
  'ulk',
  'vor',
  'wyn',
  'yel',
]

export interface SyntheticFact {
  content: string
  tags: string[]
}

/** Generates facts one at a time; `codename` gives the rare words a real memory accumulates. */
export class FactGenerator {
  private readonly next: () => number

  constructor(seed: number) {
    this.next = rng(seed)
  }

  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.next() * list.length)]!
  }

  int(max: number): number {
    return Math.floor(this.next() * max)
  }

  /** A made-up word from a space of ~330,000: project names, hosts, product names. */
  codename(): string {
    const n = 2 + this.int(2)
    let word = ''
    for (let i = 0; i < n; i++) word += this.pick(SYLLABLES)
    return word
  }

  fact(): SyntheticFact {
    const p = this.pick(PEOPLE)
    const templates: (() => SyntheticFact)[] = [
      () => ({
        content: `${p} prefers ${this.pick(TOOLS)} over ${this.pick(TOOLS)} for the ${this.codename()} project`,
        tags: ['tooling', 'preferences'],
      }),
      () => ({
        content: `The ${this.pick(THINGS)} is ${this.pick(ADJ)} on ${this.pick(DAYS)}s until the ${this.codename()} migration is done`,
        tags: ['ops'],
      }),
      () => ({
        content: `${p} moved to ${this.pick(PLACES)} in ${this.pick(MONTHS)} ${2015 + this.int(11)} and works on ${this.codename()}`,
        tags: ['people', 'travel'],
      }),
      () => ({
        content: `${p}'s favourite food is ${this.pick(FOODS)}, especially from the place near the ${this.pick(PLACES)} office`,
        tags: ['food', 'people'],
      }),
      () => ({
        content: `We decided to run ${this.pick(TOOLS)} ${1 + this.int(30)}.${this.int(10)} on ${this.codename()}-${this.int(100)}.internal for the ${this.pick(THINGS)}`,
        tags: ['project', 'ops'],
      }),
      () => ({
        content: `${p} goes ${this.pick(HOBBIES)} every ${this.pick(DAYS)} and asked not to be paged then`,
        tags: ['hobby', 'schedule'],
      }),
      () => ({
        content: `The budget for ${this.codename()} is ${1 + this.int(900)} thousand euros, approved by ${p} on ${1 + this.int(28)} ${this.pick(MONTHS)} ${2020 + this.int(6)}`,
        tags: ['finance', 'project'],
      }),
      () => ({
        content: `Rotate the ${this.codename()} API keys every ${1 + this.int(12)} months; ${p} owns the ${this.pick(THINGS)}`,
        tags: ['security'],
      }),
      () => ({
        content: `${p} is allergic to ${this.pick(FOODS)} and prefers meetings before ${8 + this.int(6)} am`,
        tags: ['health', 'preferences'],
      }),
    ]
    return this.pick(templates)()
  }

  /** A question an agent might ask about facts like these. */
  query(): string {
    const forms = [
      () => `what does ${this.pick(PEOPLE)} prefer for ${this.pick(TOOLS)}`,
      () => `is the ${this.pick(THINGS)} ${this.pick(ADJ)}`,
      () => `where did ${this.pick(PEOPLE)} move`,
      () => `${this.pick(FOODS)} allergy`,
      () => `budget for ${this.codename()}`,
      () => `who owns the ${this.pick(THINGS)}`,
      () => `${this.pick(HOBBIES)} on ${this.pick(DAYS)}`,
      () => `${this.pick(TOOLS)} version on ${this.codename()}`,
    ]
    return this.pick(forms)()
  }
}
