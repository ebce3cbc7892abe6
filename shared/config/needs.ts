/**
 * What a module needs of the deployment that runs it, said where the call is made: the
 * module that opens credentials says `needs('credentialsKey')`, the one that publishes to
 * SNS says `needs('topic')`. The stack's bindings (shared/aws/deployment.ts) are checked
 * against these at synth time: every module a function's bundle reaches (lazy chunks too)
 * is read for its `needs(...)`, and a function whose bindings miss one, or hold one nothing
 * it reaches needs, does not bundle (lib/bindings-check.ts).
 */

/** What a module may need; each is one binding of the stack (its variables and its grant). */
export const NEEDS = [
  /** Items in the store's DynamoDB table. */
  'table',
  /** Events on the bus: steps, workflow changes, learning and assistant turns. */
  'bus',
  /** Publishing notices to the SNS topic. */
  'topic',
  /** The secret that signs and checks decision links. */
  'linkKey',
  /** The secret that is the event feed's bearer key. */
  'apiKey',
  /** The secret webhook bodies are signed with. */
  'webhookSecret',
  /** KMS on the key that seals integration credentials. */
  'credentialsKey',
  /** EventBridge Scheduler schedules in the stack's group. */
  'schedules',
  /** Calls to the model provider (Bedrock, when the stack's provider is Bedrock). */
  'models',
  /** Transcribe streaming and Polly. */
  'speech',
  /**
   * AgentCore Browser and Code Interpreter sessions. No function of the stack is bound to it:
   * the Lambda bundles carry a stub that refuses these integrations with one line
   * (lib/bundle-stubs/agentcore.ts), so a bundle that reaches the real modules fails the check.
   */
  'agentcore',
] as const;

export type Need = (typeof NEEDS)[number];

/**
 * Declares, at the top of a module, what the function running it must be bound to. It does
 * nothing at run time: the bindings check reads it from the source.
 */
export function needs(...what: Need[]): readonly Need[] {
  return what;
}
