/**
 * Stands in for shared/integrations/agentcore-code-interpreter.ts in the Lambda bundles (see
 * aliases.ts): the stack grants no function AgentCore (its Browser also needs playwright-core,
 * which Lambda does not have), so a workflow that names an AgentCore integration is refused
 * there with one line, and the bindings check never meets the `agentcore` need on Lambda.
 */
import type { ServerConnection } from '../../shared/integrations/mcp-connect.ts';
import type { ServerEntry } from '../../shared/integrations/servers.ts';
import { IntegrationError } from '../../shared/integrations/tool.ts';

export function connectAgentCore(entry: ServerEntry): Promise<ServerConnection> {
  return Promise.reject(
    new IntegrationError(
      `${entry.name}: AgentCore Browser and Code Interpreter integrations are not part of the AWS deployment; use them where Handoff runs locally`,
    ),
  );
}
