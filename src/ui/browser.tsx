import {Box, Text, useApp, useInput, useStdout} from 'ink'
import {useEffect, useReducer} from 'react'

import {inert} from '../cli/inert-text.js'
import type {Backend} from './backend.js'
import {AgentList} from './components/agent-list.js'
import {CheckpointList} from './components/checkpoint-list.js'
import {CheckpointView} from './components/checkpoint-view.js'
import {ConfirmDelete} from './components/confirm.js'
import {Editor} from './components/editor.js'
import {FactDetail} from './components/fact-detail.js'
import {FactList} from './components/fact-list.js'
import {SearchBar} from './components/search-bar.js'
import {StatusBar} from './components/status-bar.js'
import {withKeys} from './keys.js'
import {initialState, reducer, type Action, type State} from './state.js'

export interface BrowserProps {
  backend: Backend
  agent: string
  /** How often to look for changes other processes wrote, in ms. */
  pollMs?: number
  /** The clock for relative dates; tests fix it. */
  now?: () => Date
}

const reduce = withKeys(reducer)

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}

/** Runs `load` whenever `deps` change and dispatches its result, unless a newer load has started. */
function useLoad(dispatch: (a: Action) => void, load: (() => Promise<Action>) | undefined, deps: unknown[]): void {
  useEffect(() => {
    if (!load) return
    let current = true
    load().then(
      (action) => current && dispatch(action),
      (error: unknown) => current && dispatch({type: 'failed', message: message(error)}),
    )
    return () => {
      current = false
    }
  }, deps)
}

/** How the browser ends when left with Ctrl-C; runBrowser turns it into exit status 130. */
export class Interrupted extends Error {
  constructor() {
    super('interrupted')
    this.name = 'Interrupted'
  }
}

export function Browser({backend, agent, pollMs = 1000, now = () => new Date()}: BrowserProps) {
  const [state, dispatch] = useReducer(reduce, agent, initialState)
  const {exit} = useApp()
  const {stdout} = useStdout()
  const rows = Math.max(10, (stdout.rows ?? 24) - 1)
  const bodyHeight = rows - 5
  const {screen} = state

  useInput((input, key) => dispatch({type: 'key', input, key}))

  useEffect(() => {
    if (state.quit) exit(state.interrupted ? new Interrupted() : undefined)
  }, [state.quit, state.interrupted, exit])

  useEffect(() => {
    if (pollMs <= 0) return
    const timer = setInterval(() => dispatch({type: 'refresh'}), pollMs)
    return () => clearInterval(timer)
  }, [pollMs])

  const {agent: current, query, generation} = state
  useLoad(
    dispatch,
    async () => ({type: 'facts-loaded', agent: current, query, facts: await backend.facts(current, query)}),
    [backend, current, query, generation],
  )
  const factId = screen.name === 'fact' ? screen.id : undefined
  useLoad(
    dispatch,
    factId ? async () => ({type: 'history-loaded', history: await backend.history(current, factId)}) : undefined,
    [backend, current, factId, generation],
  )
  const agentsShown = screen.name === 'agents'
  useLoad(dispatch, agentsShown ? async () => ({type: 'agents-loaded', agents: await backend.agents()}) : undefined, [
    backend,
    agentsShown,
    generation,
  ])
  const checkpointsShown = screen.name === 'checkpoints'
  useLoad(
    dispatch,
    checkpointsShown
      ? async () => ({type: 'checkpoints-loaded', agent: current, checkpoints: await backend.checkpoints(current)})
      : undefined,
    [backend, current, checkpointsShown, generation],
  )
  const checkpointId = screen.name === 'checkpoint' ? screen.id : undefined
  useLoad(
    dispatch,
    checkpointId
      ? async () => ({type: 'checkpoint-loaded', checkpoint: await backend.checkpoint(current, checkpointId)})
      : undefined,
    [backend, current, checkpointId],
  )

  const pending = state.pending
  useEffect(() => {
    if (!pending) return
    const write: Promise<{notice: string; factId?: string}> =
      pending.kind === 'add'
        ? backend.add(current, pending.content, pending.tags)
        : (pending.kind === 'update'
            ? backend.update(current, pending.id, pending.content, pending.tags)
            : backend.remove(current, pending.id)
          ).then((notice) => ({notice}))
    // A write is never abandoned half-way: its outcome is reported even if the screen moved on.
    write.then(
      ({notice, factId}) => dispatch({type: 'written', notice, ...(factId === undefined ? {} : {added: factId})}),
      (error: unknown) => dispatch({type: 'failed', message: message(error)}),
    )
  }, [backend, current, pending])

  const time = now()
  return (
    <Box flexDirection="column" height={rows}>
      <Box>
        <Text bold color="cyan">
          mem
        </Text>
        <Text dimColor>{` · agent ${inert(state.agent)} · ${title(state)}`}</Text>
      </Box>
      {screen.name === 'facts' ? <SearchBar query={state.query} typing={state.typing} /> : <Text> </Text>}
      <Box flexDirection="column" flexGrow={1} overflow="hidden">
        {body(state, bodyHeight, time)}
      </Box>
      <StatusBar
        screen={screen.name}
        typing={state.typing && screen.name === 'facts'}
        notice={state.notice}
        error={state.error}
      />
    </Box>
  )
}

function title(state: State): string {
  switch (state.screen.name) {
    case 'facts':
      return state.factsFor === undefined
        ? 'facts'
        : `${state.facts.length} ${state.facts.length === 1 ? 'fact' : 'facts'}`
    case 'fact':
      return 'fact'
    case 'edit':
      return state.screen.id === undefined ? 'new fact' : 'edit fact'
    case 'confirm-delete':
      return 'delete fact'
    case 'agents':
      return 'agents'
    case 'checkpoints':
      return 'checkpoints'
    case 'checkpoint':
      return 'checkpoint'
  }
}

function body(state: State, height: number, now: Date) {
  const {screen} = state
  switch (screen.name) {
    case 'facts':
      return (
        <FactList
          facts={state.facts}
          selected={state.selected}
          query={state.query}
          height={height}
          now={now}
          loaded={state.factsFor !== undefined}
        />
      )
    case 'fact':
      return <FactDetail factId={screen.id} history={state.history} now={now} height={height} scroll={state.scroll} />
    case 'edit':
      return (
        <Editor
          title={
            screen.id === undefined
              ? `New fact for agent ${inert(state.agent)}`
              : `Edit fact ${screen.id} (saves a new version)`
          }
          draft={screen.draft}
          busy={state.pending !== undefined}
        />
      )
    case 'confirm-delete':
      return (
        <ConfirmDelete
          content={
            state.facts.find((f) => f.id === screen.id)?.content ??
            state.history?.versions.find((f) => f.id === screen.id)?.content
          }
          busy={state.pending !== undefined}
        />
      )
    case 'agents':
      return (
        <AgentList
          agents={state.agents}
          selected={state.agentSelected}
          current={state.agent}
          height={height}
          now={now}
        />
      )
    case 'checkpoints':
      return (
        <CheckpointList checkpoints={state.checkpoints} selected={state.checkpointSelected} height={height} now={now} />
      )
    case 'checkpoint':
      return <CheckpointView checkpoint={state.checkpoint} height={height} scroll={state.scroll} now={now} />
  }
}
