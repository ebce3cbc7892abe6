import { TextBlock } from '@strands-agents/sdk';
import {
  Node,
  type MultiAgentInput,
  type MultiAgentState,
  type NodeResultUpdate,
} from '@strands-agents/sdk/multiagent';

/** Writes the audit entry and sends the completion notification. Makes no judgement call. */
export class CompleterNode extends Node {
  constructor(private readonly complete: () => Promise<string>) {
    super('completer', { description: 'Records the run and tells the person.' });
  }

  async *handle(
    _input: MultiAgentInput,
    _state: MultiAgentState,
  ): AsyncGenerator<never, NodeResultUpdate, undefined> {
    const summary = await this.complete();
    return { content: [new TextBlock(summary)] };
  }
}
