/**
 * Bedrock's ConverseStream, stood in for by the project's offline model: the request (the
 * wire format BedrockModel sends) becomes Strands messages, the offline model plans the turn,
 * and its events go back as Bedrock's event stream. A deployment on Bedrock then runs every
 * agent (executor, learner, assistant) through the real provider code and its grants.
 */
import {
  JsonBlock,
  Message,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
  type ContentBlock,
} from '@strands-agents/sdk';
import type { ModelStreamEvent, StreamOptions } from '@strands-agents/sdk';
import { OfflineModel } from '../../../shared/models/offline/offline-model.ts';
import { eventMessage } from './event-stream.ts';

type Part = {
  text?: string;
  toolUse?: { toolUseId: string; name: string; input: unknown };
  toolResult?: { toolUseId: string; status?: string; content: { text?: string; json?: unknown }[] };
};
interface ConverseRequest {
  messages: { role: 'user' | 'assistant'; content: Part[] }[];
  system?: { text?: string }[];
  toolConfig?: {
    tools: { toolSpec?: { name: string; description?: string; inputSchema?: { json: unknown } } }[];
  };
}

function block(part: Part): ContentBlock | null {
  if (part.text !== undefined) return new TextBlock(part.text);
  if (part.toolUse) return new ToolUseBlock({ ...part.toolUse, input: part.toolUse.input as never });
  if (part.toolResult)
    return new ToolResultBlock({
      toolUseId: part.toolResult.toolUseId,
      status: part.toolResult.status === 'error' ? 'error' : 'success',
      content: part.toolResult.content.map((c) =>
        c.json !== undefined ? new JsonBlock({ json: c.json as never }) : new TextBlock(c.text ?? ''),
      ),
    });
  return null; // cache points and the like
}

/** The event-stream body of the offline model's answer to one ConverseStream request. */
export async function converseStream(body: ConverseRequest): Promise<Buffer> {
  const messages = body.messages.map(
    (m) => new Message({ role: m.role, content: m.content.map(block).filter((b) => b !== null) }),
  );
  const options: StreamOptions = {
    systemPrompt: (body.system ?? []).map((s) => s.text ?? '').join('\n'),
    toolSpecs: (body.toolConfig?.tools ?? []).flatMap((t) =>
      t.toolSpec
        ? [
            {
              name: t.toolSpec.name,
              description: t.toolSpec.description ?? '',
              inputSchema: t.toolSpec.inputSchema?.json as never,
            },
          ]
        : [],
    ),
  };
  const out: Buffer[] = [];
  let index = -1;
  for await (const event of new OfflineModel().stream(messages, options) as AsyncIterable<ModelStreamEvent>) {
    const e = event as Record<string, unknown> & { type: string };
    if (e.type === 'modelMessageStartEvent') out.push(eventMessage('messageStart', { role: 'assistant' }));
    else if (e.type === 'modelContentBlockStartEvent') {
      index += 1;
      const start = e.start as { type: string; name: string; toolUseId: string } | undefined;
      if (start?.type === 'toolUseStart')
        out.push(
          eventMessage('contentBlockStart', {
            contentBlockIndex: index,
            start: { toolUse: { toolUseId: start.toolUseId, name: start.name } },
          }),
        );
    } else if (e.type === 'modelContentBlockDeltaEvent') {
      const delta = e.delta as { type: string; text?: string; input?: string };
      out.push(
        eventMessage('contentBlockDelta', {
          contentBlockIndex: index,
          delta: delta.type === 'textDelta' ? { text: delta.text } : { toolUse: { input: delta.input } },
        }),
      );
    } else if (e.type === 'modelContentBlockStopEvent')
      out.push(eventMessage('contentBlockStop', { contentBlockIndex: index }));
    else if (e.type === 'modelMessageStopEvent')
      out.push(
        eventMessage('messageStop', { stopReason: e.stopReason === 'toolUse' ? 'tool_use' : 'end_turn' }),
      );
    else if (e.type === 'modelMetadataEvent')
      out.push(eventMessage('metadata', { usage: e.usage, metrics: { latencyMs: 1 } }));
  }
  return Buffer.concat(out);
}
