import { Message, TextBlock, type Model, type StreamOptions } from '@strands-agents/sdk';

/** One model turn on the user message "Go" with `options` (tools, system prompt), aggregated as the agent loop reads it. */
export async function oneTurn(model: Model, options: StreamOptions) {
  const generator = model.streamAggregated(
    [new Message({ role: 'user', content: [new TextBlock('Go')] })],
    options,
  );
  for (let next = await generator.next(); ; next = await generator.next()) if (next.done) return next.value;
}
