import { TextBlock } from '@strands-agents/sdk';
import {
  Node,
  type MultiAgentInput,
  type MultiAgentState,
  type NodeResultUpdate,
} from '@strands-agents/sdk/multiagent';
import type { RunTrigger } from '../../records/runs.ts';

export interface TriggerVerdict {
  triggered: boolean;
  reason: string;
}

/**
 * Checks that the wake-up is real: a person pressed Run, a cron fired, a webhook carried
 * a body, and there is something new to look at. No model call is spent on an empty signal.
 */
export class TriggerNode extends Node {
  constructor(
    private readonly trigger: RunTrigger,
    private readonly hasNewItems: () => Promise<boolean>,
    /** Says why there is nothing to do ("no new mail since 08:00 UTC"); read only then. */
    private readonly quietReason: () => Promise<string> = async () => 'nothing new in the source',
  ) {
    super('trigger', { description: 'Confirms the wake-up is legitimate.' });
  }

  async *handle(
    _input: MultiAgentInput,
    _state: MultiAgentState,
  ): AsyncGenerator<never, NodeResultUpdate, undefined> {
    const verdict = await this.check();
    return { content: [new TextBlock(JSON.stringify(verdict))], structuredOutput: verdict };
  }

  private async check(): Promise<TriggerVerdict> {
    if (this.trigger.kind === 'webhook' && !this.trigger.detail?.trim())
      return { triggered: false, reason: 'the webhook carried no body' };
    if (!(await this.hasNewItems())) return { triggered: false, reason: await this.quietReason() };
    return { triggered: true, reason: `${this.trigger.kind} wake-up with new items` };
  }
}

/** The edge condition trigger → executor: only a confirmed wake-up spends a primary-model call. */
export function wasTriggered(state: MultiAgentState): boolean {
  const verdict = state.node('trigger')?.results.at(-1)?.structuredOutput as TriggerVerdict | undefined;
  return verdict?.triggered === true;
}
