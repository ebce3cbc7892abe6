/**
 * The workspace assistant: a triage agent that hands off, one way, to the Builder
 * (workflows) or the Operator (runs, decisions, rules) with the project's handoffs library.
 * The triage agent's history is the chat's Strands session (stored on the chat record) and
 * is bounded per model call; a specialist sees only the request, not the chit-chat.
 */
import { Agent, ModelStreamUpdateEvent, SessionManager, type Model } from '@strands-agents/sdk';
import { PagedWindow } from '../agents/executor/paged-window.ts';
import { ChatSnapshotStorage } from '../chats/chat-snapshot-storage.ts';
import { narrateTools } from '../graph/narrator.ts';
import { compose, handoff, handoffs, keepLastN, removeToolCalls } from '../handoffs/index.ts';
import { builderTools } from './builder-tools.ts';
import type { ChatTurn } from './chat-turn.ts';
import { attachConfirmGate } from './confirm-gate.ts';
import { discoveryTools } from './discovery-tools.ts';
import { operatorTools } from './operator-tools.ts';
import { BUILDER_PROMPT, OPERATOR_PROMPT, TRIAGE_PROMPT, withDraft } from './prompts.ts';
import type { Workflow } from '../workflows/schema.ts';

/** Recent messages of the chat the triage agent sees per model call (plus the first). */
export const CHAT_WINDOW = 12;
export const ASSISTANT = 'assistant';
export const BUILDER = 'builder';
export const OPERATOR = 'operator';

/** A specialist gets the person's latest request only: no tool calls, no earlier chit-chat. */
const requestOnly = compose(removeToolCalls, keepLastN(1));

export interface AssistantAgents {
  triage: Agent;
  session: SessionManager;
}

/**
 * Builds the chat's agents for one turn; every process builds them the same way. The chat's
 * draft (from the store) is in the triage's and the Builder's prompts, so a refinement in
 * any later turn, process or surface changes it.
 */
export function buildAssistant(
  turn: ChatTurn,
  models: { triage: Model; builder: Model; operator: Model },
  draft: Workflow | null = null,
): AssistantAgents {
  const builder = specialist(turn, BUILDER, models.builder, withDraft(BUILDER_PROMPT, draft), [
    ...discoveryTools(turn),
    ...builderTools(turn),
  ]);
  const operator = specialist(turn, OPERATOR, models.operator, OPERATOR_PROMPT, [
    ...discoveryTools(turn),
    ...operatorTools(turn),
  ]);
  const announce = (to: string) => () => {
    turn.log.card({ kind: 'handoff', from: ASSISTANT, to });
    turn.log.emit('handoff', `${ASSISTANT} → ${to}`, { from: ASSISTANT, to });
  };
  const session = new SessionManager({
    sessionId: turn.chatId,
    storage: { snapshot: new ChatSnapshotStorage(turn.engine.store, turn.chatId) },
  });
  const triage = new Agent({
    id: ASSISTANT,
    name: ASSISTANT,
    model: models.triage,
    systemPrompt: withDraft(TRIAGE_PROMPT, draft),
    printer: false,
    conversationManager: new PagedWindow(CHAT_WINDOW),
    sessionManager: session,
    plugins: [
      handoffs([
        handoff(builder, {
          description:
            "Build a new workflow from a description, or show or change this chat's draft, preview and save it.",
          inputFilter: requestOnly,
          onHandoff: announce(BUILDER),
        }),
        handoff(operator, {
          description:
            'Act on what exists: list, show, run, pause, resume, rename or delete workflows; waiting decisions and why they were asked; rules; what was done on a day.',
          inputFilter: requestOnly,
          onHandoff: announce(OPERATOR),
        }),
      ]),
    ],
  });
  streamText(triage, turn);
  return { triage, session };
}

function specialist(
  turn: ChatTurn,
  name: string,
  model: Model,
  prompt: string,
  tools: ReturnType<typeof discoveryTools>,
): Agent {
  const agent = new Agent({
    id: name,
    name,
    model,
    systemPrompt: prompt,
    tools,
    printer: false,
    toolExecutor: 'sequential',
  });
  attachConfirmGate(agent, turn);
  narrateTools(agent, turn.log.emit);
  streamText(agent, turn);
  return agent;
}

/** Streams the agent's text onto the chat's feed as `delta` events. */
function streamText(agent: Agent, turn: ChatTurn): void {
  agent.addHook(ModelStreamUpdateEvent, (event) => {
    const e = event.event;
    if (e.type === 'modelContentBlockDeltaEvent' && e.delta.type === 'textDelta')
      turn.log.emit('delta', e.delta.text, { agent: agent.name });
  });
}
