import {joinDraft, splitDraft} from './draft-tags.js'
import type {AgentSummary, CheckpointDetail, CheckpointSummary, FactRow, History} from './backend.js'

export type Screen =
  | {name: 'facts'}
  | {name: 'fact'; id: string}
  | {name: 'edit'; id: string | undefined; draft: string; from: 'fact' | 'facts'}
  | {name: 'confirm-delete'; id: string; from: 'fact' | 'facts'}
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
  screen: Screen
  query: string
  /** Keys go to the search box rather than to commands. */
  typing: boolean
  facts: FactRow[]
  /** The query the shown facts answer; results for an older query are dropped. */
  factsFor: string | undefined
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
  | {type: 'scroll'; by: number}
  | {type: 'start-typing'}
  | {type: 'stop-typing'}
  | {type: 'type'; text: string}
  | {type: 'erase'}
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
  | {type: 'facts-loaded'; agent: string; query: string; facts: FactRow[]}
  | {type: 'history-loaded'; history: History}
  | {type: 'agents-loaded'; agents: AgentSummary[]}
  | {type: 'checkpoints-loaded'; agent: string; checkpoints: CheckpointSummary[]}
  | {type: 'checkpoint-loaded'; checkpoint: CheckpointDetail}
  /** `added`: the id of a fact the write stored, for the cursor to land on. */
  | {type: 'written'; notice: string; added?: string}
  | {type: 'failed'; message: string}

export function initialState(agent: string): State {
  return {
    agent,
    screen: {name: 'facts'},
    query: '',
    typing: false,
    facts: [],
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

export function selectedFact(state: State): FactRow | undefined {
  return state.facts[state.selected]
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
      return {...state, selected: clamp(state.selected + by, state.facts.length)}
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
              facts: [],
              factsFor: undefined,
              selected: 0,
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
  const {content, tags} = splitDraft(screen.draft)
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
      return state.query === '' ? {...state, quit: true} : {...state, query: '', selected: 0}
  }
}

export function reducer(state: State, action: Action): State {
  switch (action.type) {
    case 'move':
      return move(state, action.by)
    case 'scroll':
      return {...state, scroll: Math.max(0, state.scroll + action.by)}
    case 'start-typing':
      return {...state, screen: {name: 'facts'}, typing: true, notice: undefined}
    case 'stop-typing':
      return {...state, typing: false}
    case 'type':
      if (state.screen.name === 'edit')
        return {...state, screen: {...state.screen, draft: state.screen.draft + action.text}, error: undefined}
      return {...state, query: state.query + action.text, selected: 0}
    case 'erase':
      if (state.screen.name === 'edit')
        return {...state, screen: {...state.screen, draft: [...state.screen.draft].slice(0, -1).join('')}}
      return {...state, query: [...state.query].slice(0, -1).join(''), selected: 0}
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
      return {
        ...state,
        screen: {name: 'edit', id: undefined, draft: '', from: 'facts'},
        typing: false,
        notice: undefined,
        error: undefined,
      }
    case 'edit': {
      const id = targetId(state)
      const fact = state.screen.name === 'fact' ? state.history?.versions.find((f) => f.id === id) : selectedFact(state)
      return id && fact
        ? {
            ...state,
            screen: {name: 'edit', id, draft: joinDraft(fact.content, fact.tags), from: from(state)},
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
      return state.screen.name === 'confirm-delete' ? {...state, pending: {kind: 'delete', id: state.screen.id}} : state
    case 'refresh':
      return {...state, generation: state.generation + 1}
    case 'facts-loaded': {
      if (action.agent !== state.agent || action.query !== state.query) return state
      if (state.factsFor === action.query && same(state.facts, action.facts)) return state
      // Keep the cursor on the same fact when other processes add or remove facts around it.
      const added = state.focus === undefined ? -1 : action.facts.findIndex((f) => f.id === state.focus)
      if (added >= 0) return {...state, facts: action.facts, factsFor: action.query, selected: added, focus: undefined}
      const current = selectedFact(state)?.id
      const at = current === undefined ? -1 : action.facts.findIndex((f) => f.id === current)
      const selected = state.factsFor === action.query && at >= 0 ? at : clamp(state.selected, action.facts.length)
      return {...state, facts: action.facts, factsFor: action.query, selected}
    }
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
          typing: false,
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
