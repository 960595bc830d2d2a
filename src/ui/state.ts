import {
  SEARCH_LIMIT,
  type AgentSummary,
  type CheckpointDetail,
  type CheckpointSummary,
  type FactRow,
  type FactsPage,
  type History,
} from './backend.js'
import {windowOf} from './components/window.js'
import {joinDraft, splitDraft} from './draft-tags.js'
import {DEFAULT_VIEW, pageRows, type View} from './layout.js'
import {edit as applyEdit, lineOf, type Edit, type Line} from './line-edit.js'

export type Screen =
  | {name: 'facts'}
  | {name: 'fact'; id: string}
  | {name: 'edit'; id: string | undefined; draft: Line; from: 'fact' | 'facts'}
  | {name: 'confirm-delete'; id: string; from: 'fact' | 'facts'}
  /** `n` on an agent that has stored nothing yet: creating it is asked first. */
  | {name: 'confirm-create'}
  | {name: 'agents'}
  | {name: 'checkpoints'}
  | {name: 'checkpoint'; id: string}

/** A write the browser has asked for and not yet seen finish; App runs it through the backend. */
export type Write =
  | {kind: 'add'; content: string; tags: string[]}
  | {kind: 'update'; id: string; content: string; tags: string[]}
  | {kind: 'delete'; id: string}

export interface State {
  agent: string
  /** The agent named on the command line (--agent, MEM_AGENT), which may be a typo; undefined for the default. */
  named: string | undefined
  view: View
  screen: Screen
  query: string
  /** Where the cursor is in the query. */
  queryCursor: number
  /** Keys go to the search box rather than to commands. */
  typing: boolean
  /** The loaded part of the list: rows `offset` to `offset + facts.length - 1` of `count`. */
  facts: FactRow[]
  offset: number
  /** Rows in the whole list: the agent's live facts, or the results of the search. */
  count: number
  /** The agent's live facts, when known. */
  live: number | undefined
  /** For a search: results that matched themselves (the rest are context of their threads), and whether search stopped at its limit. */
  search: FactsPage['search']
  /** Set while the agent has stored nothing at all: the CLI's hint naming the agents there are. */
  unknown: string | undefined
  /** The query the shown facts answer; results for an older query are dropped. */
  factsFor: string | undefined
  /** The row under the cursor, counted in the whole list. */
  selected: number
  history: History | undefined
  agents: AgentSummary[]
  agentSelected: number
  checkpoints: CheckpointSummary[]
  checkpointSelected: number
  checkpoint: CheckpointDetail | undefined
  /** First line shown of a long view (fact history, checkpoint state). */
  scroll: number
  pending: Write | undefined
  /** A fact just added: the cursor goes to it once the list holds it. */
  focus: string | undefined
  notice: string | undefined
  error: string | undefined
  /** Bumped by the poll timer and after writes: every view reloads what it shows. */
  generation: number
  quit: boolean
  interrupted: boolean
}

export type Action =
  | {type: 'move'; by: number}
  /** Home and End in a list: the first or the last row; in a long view, its top. */
  | {type: 'move-to'; end: 'first' | 'last'}
  | {type: 'scroll'; by: number}
  | {type: 'start-typing'}
  | {type: 'stop-typing'}
  /** A key that edits the line being typed: the editor's draft, or the search while typing. */
  | {type: 'line'; edit: Edit}
  | {type: 'resized'; view: View}
  | {type: 'open'}
  | {type: 'back'}
  | {type: 'quit'}
  /** Ctrl-C: leave as a shell expects of an interrupted program (exit 130). */
  | {type: 'interrupt'}
  | {type: 'show'; screen: 'agents' | 'checkpoints'}
  | {type: 'add'}
  | {type: 'edit'}
  | {type: 'ask-delete'}
  | {type: 'confirm'}
  | {type: 'refresh'}
  | ({type: 'facts-loaded'; agent: string; query: string} & FactsPage)
  /** While searching: how many live facts the agent has, counted afresh on every reload. */
  | {type: 'live-counted'; agent: string; live: number}
  | {type: 'history-loaded'; history: History}
  | {type: 'agents-loaded'; agents: AgentSummary[]}
  | {type: 'checkpoints-loaded'; agent: string; checkpoints: CheckpointSummary[]}
  | {type: 'checkpoint-loaded'; checkpoint: CheckpointDetail}
  /** `added`: the id of a fact the write stored, for the cursor to land on. */
  | {type: 'written'; notice: string; added?: string}
  | {type: 'failed'; message: string}

export function initialState(agent: string, view: View = DEFAULT_VIEW, named?: string): State {
  return {
    agent,
    named,
    view,
    screen: {name: 'facts'},
    query: '',
    queryCursor: 0,
    typing: false,
    facts: [],
    offset: 0,
    count: 0,
    live: undefined,
    search: undefined,
    unknown: undefined,
    factsFor: undefined,
    selected: 0,
    history: undefined,
    agents: [],
    agentSelected: 0,
    checkpoints: [],
    checkpointSelected: 0,
    checkpoint: undefined,
    scroll: 0,
    pending: undefined,
    focus: undefined,
    notice: undefined,
    error: undefined,
    generation: 0,
    quit: false,
    interrupted: false,
  }
}

function clamp(n: number, length: number): number {
  return Math.max(0, Math.min(n, length - 1))
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/** Rows of the list loaded at a time on either side of the screenful shown: a page past them loads the next. */
const STEP = 100

export function isSearch(query: string): boolean {
  return query.trim() !== ''
}

/** The rows of the list to load: for a listing, those around the cursor; for a search, all its results. */
export function pageOf(state: State): {offset: number; limit: number} {
  if (isSearch(state.query)) return {offset: 0, limit: SEARCH_LIMIT}
  const rows = pageRows(state.view)
  const step = Math.max(STEP, rows)
  const {start} = windowOf(state.count, state.selected, rows)
  return {offset: Math.max(0, (Math.floor(start / step) - 1) * step), limit: 3 * step}
}

/** Row `index` of the whole list, if it is loaded. */
export function rowAt(state: State, index: number): FactRow | undefined {
  return index < state.offset ? undefined : state.facts[index - state.offset]
}

export function selectedFact(state: State): FactRow | undefined {
  return rowAt(state, state.selected)
}

/** The fact a command acts on: the one open, else the one under the cursor. */
function targetId(state: State): string | undefined {
  return state.screen.name === 'fact' ? state.screen.id : selectedFact(state)?.id
}

function from(state: State): 'fact' | 'facts' {
  return state.screen.name === 'fact' ? 'fact' : 'facts'
}

function move(state: State, by: number): State {
  switch (state.screen.name) {
    case 'facts':
      return {...state, selected: clamp(state.selected + by, state.count), focus: undefined}
    case 'agents':
      return {...state, agentSelected: clamp(state.agentSelected + by, state.agents.length)}
    case 'checkpoints':
      return {...state, checkpointSelected: clamp(state.checkpointSelected + by, state.checkpoints.length)}
    case 'fact':
    case 'checkpoint':
      return {...state, scroll: Math.max(0, state.scroll + by)}
    default:
      return state
  }
}

function moveTo(state: State, end: 'first' | 'last'): State {
  const to = (length: number): number => (end === 'first' ? 0 : Math.max(0, length - 1))
  switch (state.screen.name) {
    case 'facts':
      return {...state, selected: to(state.count), focus: undefined}
    case 'agents':
      return {...state, agentSelected: to(state.agents.length)}
    case 'checkpoints':
      return {...state, checkpointSelected: to(state.checkpoints.length)}
    case 'fact':
    case 'checkpoint':
      return end === 'first' ? {...state, scroll: 0} : state
    default:
      return state
  }
}

/** What a list shows before its first rows arrive, for an agent just opened or switched to. */
const NOTHING_LOADED: Pick<
  State,
  'facts' | 'offset' | 'count' | 'live' | 'search' | 'unknown' | 'factsFor' | 'selected'
> = {
  facts: [],
  offset: 0,
  count: 0,
  live: undefined,
  search: undefined,
  unknown: undefined,
  factsFor: undefined,
  selected: 0,
}

function open(state: State): State {
  switch (state.screen.name) {
    case 'facts': {
      const fact = selectedFact(state)
      return fact
        ? {...state, screen: {name: 'fact', id: fact.id}, history: undefined, scroll: 0, typing: false}
        : state
    }
    case 'agents': {
      const agent = state.agents[state.agentSelected]
      if (!agent) return state
      const switched = agent.agent_id !== state.agent
      return {
        ...state,
        agent: agent.agent_id,
        screen: {name: 'facts'},
        ...(switched
          ? {
              ...NOTHING_LOADED,
              checkpoints: [],
              checkpointSelected: 0,
              notice: `Switched to agent ${agent.agent_id}.`,
            }
          : {}),
      }
    }
    case 'checkpoints': {
      const cp = state.checkpoints[state.checkpointSelected]
      return cp ? {...state, screen: {name: 'checkpoint', id: cp.id}, checkpoint: undefined, scroll: 0} : state
    }
    case 'edit':
      return submit(state, state.screen)
    default:
      return state
  }
}

function submit(state: State, screen: Extract<Screen, {name: 'edit'}>): State {
  const {content, tags} = splitDraft(screen.draft.text)
  if (content === '')
    return {...state, error: 'A fact needs some text besides its #tags; type it, or press Esc to cancel.'}
  const pending: Write =
    screen.id === undefined ? {kind: 'add', content, tags} : {kind: 'update', id: screen.id, content, tags}
  return {...state, pending, error: undefined}
}

function back(state: State): State {
  switch (state.screen.name) {
    case 'fact':
    case 'agents':
    case 'checkpoints':
      return {...state, screen: {name: 'facts'}, scroll: 0}
    case 'confirm-create':
      return {...state, screen: {name: 'facts'}}
    case 'edit':
    case 'confirm-delete':
      return {
        ...state,
        screen:
          state.screen.from === 'fact' && state.screen.id !== undefined
            ? {name: 'fact', id: state.screen.id}
            : {name: 'facts'},
        error: undefined,
      }
    case 'checkpoint':
      return {...state, screen: {name: 'checkpoints'}, scroll: 0}
    case 'facts':
      // Esc first clears a search, then leaves.
      return state.query === '' ? {...state, quit: true} : {...state, query: '', queryCursor: 0, selected: 0}
  }
}

function editLine(state: State, change: Edit): State {
  if (state.screen.name === 'edit')
    return {...state, screen: {...state.screen, draft: applyEdit(state.screen.draft, change)}, error: undefined}
  if (state.screen.name !== 'facts' || !state.typing) return state
  const next = applyEdit({text: state.query, cursor: state.queryCursor}, change)
  if (next.text === state.query) return {...state, queryCursor: next.cursor}
  return {...state, query: next.text, queryCursor: next.cursor, selected: 0, focus: undefined}
}

const NEW_FACT = (state: State): State => ({
  ...state,
  screen: {name: 'edit', id: undefined, draft: lineOf(''), from: 'facts'},
  typing: false,
  notice: undefined,
  error: undefined,
})

function add(state: State): State {
  // Until the first rows arrive it is not known whether the agent exists.
  if (state.factsFor === undefined) return state
  if (state.unknown !== undefined)
    return {...state, screen: {name: 'confirm-create'}, typing: false, notice: undefined, error: undefined}
  return NEW_FACT(state)
}

function confirm(state: State): State {
  if (state.screen.name === 'confirm-create') return NEW_FACT(state)
  if (state.screen.name === 'confirm-delete') return {...state, pending: {kind: 'delete', id: state.screen.id}}
  return state
}

function factsLoaded(state: State, page: Extract<Action, {type: 'facts-loaded'}>): State {
  if (page.agent !== state.agent || page.query !== state.query) return state
  // A page loaded for where the cursor was before it moved on is not the page wanted now.
  if (page.offset !== pageOf(state).offset) return state
  // A search's results say nothing of the agent's live facts or whether it exists: those stay as last counted.
  const listing = page.search === undefined
  const loaded = {
    facts: page.facts,
    offset: page.offset,
    count: page.count,
    live: listing ? page.live : state.live,
    search: page.search,
    unknown: listing ? page.unknown : state.unknown,
  }
  const shown = {
    facts: state.facts,
    offset: state.offset,
    count: state.count,
    live: state.live,
    search: state.search,
    unknown: state.unknown,
  }
  const again = state.factsFor === page.query
  if (again && same(loaded, shown)) return state
  const indexOf = (id: string | undefined): number => (id === undefined ? -1 : page.facts.findIndex((f) => f.id === id))
  // A fact just added gets the cursor; otherwise it stays on its fact when other processes add or remove facts around it.
  const focused = indexOf(state.focus)
  const current = again ? indexOf(selectedFact(state)?.id) : -1
  const selected =
    focused >= 0 ? page.offset + focused : current >= 0 ? page.offset + current : clamp(state.selected, page.count)
  return {...state, ...loaded, factsFor: page.query, selected, focus: focused >= 0 ? undefined : state.focus}
}

export function reducer(state: State, action: Action): State {
  switch (action.type) {
    case 'move':
      return move(state, action.by)
    case 'move-to':
      return moveTo(state, action.end)
    case 'scroll':
      return {...state, scroll: Math.max(0, state.scroll + action.by)}
    case 'start-typing':
      return {
        ...state,
        screen: {name: 'facts'},
        typing: true,
        queryCursor: state.query.length,
        notice: undefined,
      }
    case 'stop-typing':
      return {...state, typing: false}
    case 'line':
      return editLine(state, action.edit)
    case 'resized':
      return same(state.view, action.view) ? state : {...state, view: action.view}
    case 'open':
      return open(state)
    case 'back':
      return back(state)
    case 'quit':
      return {...state, quit: true}
    case 'interrupt':
      return {...state, quit: true, interrupted: true}
    case 'show':
      return {...state, screen: {name: action.screen}, typing: false, notice: undefined, error: undefined}
    case 'add':
      return add(state)
    case 'edit': {
      const id = targetId(state)
      const fact = state.screen.name === 'fact' ? state.history?.versions.find((f) => f.id === id) : selectedFact(state)
      return id && fact
        ? {
            ...state,
            screen: {name: 'edit', id, draft: lineOf(joinDraft(fact.content, fact.tags)), from: from(state)},
            notice: undefined,
            error: undefined,
          }
        : state
    }
    case 'ask-delete': {
      const id = targetId(state)
      return id
        ? {...state, screen: {name: 'confirm-delete', id, from: from(state)}, notice: undefined, error: undefined}
        : state
    }
    case 'confirm':
      return confirm(state)
    case 'refresh':
      return {...state, generation: state.generation + 1}
    case 'facts-loaded':
      return factsLoaded(state, action)
    case 'live-counted':
      return action.agent !== state.agent || action.live === state.live ? state : {...state, live: action.live}
    case 'history-loaded':
      return same(state.history, action.history) ? state : {...state, history: action.history}
    case 'agents-loaded': {
      if (same(state.agents, action.agents)) return state
      const current =
        state.agents.length === 0 ? action.agents.findIndex((a) => a.agent_id === state.agent) : state.agentSelected
      return {...state, agents: action.agents, agentSelected: clamp(current, action.agents.length)}
    }
    case 'checkpoints-loaded':
      if (action.agent !== state.agent || same(state.checkpoints, action.checkpoints)) return state
      return {
        ...state,
        checkpoints: action.checkpoints,
        checkpointSelected: clamp(state.checkpointSelected, action.checkpoints.length),
      }
    case 'checkpoint-loaded':
      return {...state, checkpoint: action.checkpoint}
    case 'written':
      // The fact that was open is now replaced or deleted: the list is where the new state shows.
      // A fact just added shows in the full list, newest first, under the cursor; a search might not hold it.
      if (action.added !== undefined)
        return {
          ...state,
          pending: undefined,
          screen: {name: 'facts'},
          query: '',
          queryCursor: 0,
          typing: false,
          selected: 0,
          focus: action.added,
          notice: action.notice,
          error: undefined,
          generation: state.generation + 1,
        }
      return {
        ...state,
        pending: undefined,
        screen: {name: 'facts'},
        notice: action.notice,
        error: undefined,
        generation: state.generation + 1,
      }
    case 'failed':
      return {...state, pending: undefined, error: action.message}
  }
}
