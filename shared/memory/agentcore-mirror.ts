import { createHash, randomUUID } from 'node:crypto';
import { logLine } from '../logging/log.ts';
import {
  BatchCreateMemoryRecordsCommand,
  BatchDeleteMemoryRecordsCommand,
  BedrockAgentCoreClient,
  type MemoryRecordCreateInput,
  type MemoryRecordOutput,
} from '@aws-sdk/client-bedrock-agentcore';
import {
  BedrockAgentCoreControlClient,
  CreateMemoryCommand,
  type CreateMemoryInput,
  GetMemoryCommand,
  ListMemoriesCommand,
  type Memory,
  type MemoryStrategy,
} from '@aws-sdk/client-bedrock-agentcore-control';
import { regionOption } from '../config/aws-region.ts';
import { normaliseDomain } from './match.ts';
import { noMirror, type MemoryMirror } from './mirror.ts';
import type { Rule, RuleMatch } from '../records/rule.ts';
import { isError } from '../errors/index.ts';
import { DEFAULT_WORKSPACE } from '../workspaces/names.ts';

export const DEFAULT_MEMORY_NAME = 'handoff_rules';
export const PREFERENCE_STRATEGY_NAME = 'handoff_preferences';
export const SEMANTIC_STRATEGY_NAME = 'handoff_semantic';
/** Days AgentCore keeps raw events; the mirror writes records directly, so this only bounds stray events. */
export const EVENT_EXPIRY_DAYS = 90;
/** Delay before each GetMemory re-poll while the memory is being created (about 5 minutes in all). */
const POLL_DELAYS_MS = [1_000, 2_000, 4_000, 8_000, ...Array<number>(19).fill(15_000)];
const MAX_SEGMENT = 200;
const MAX_NOTE = 500;

/** The AgentCore namespace pattern (MemoryRecordCreateInput.namespaces), anchored. */
export const NAMESPACE_PATTERN = /^[a-zA-Z0-9/*][a-zA-Z0-9\-_/*]*(?::[a-zA-Z0-9\-_/*]+)*[a-zA-Z0-9\-_/*]*$/;
/** The AgentCore requestIdentifier pattern: [a-zA-Z0-9_-]+, at most 80 characters. */
export const REQUEST_IDENTIFIER_PATTERN = /^[a-zA-Z0-9_-]{1,80}$/;

export interface AgentCoreMemoryMirrorOptions {
  data: BedrockAgentCoreClient;
  control: BedrockAgentCoreControlClient;
  /** An existing memory; without it, the memory named `memoryName` is found or created on first use. */
  memoryId?: string;
  memoryName?: string;
  actorId: string;
  log?: (line: string) => void;
  /** For tests: how to wait between GetMemory polls. */
  sleep?: (ms: number) => Promise<void>;
}

interface ResolvedMemory {
  memoryId: string;
  preferenceStrategyId: string;
  semanticStrategyId: string;
}

/** A setup problem described by us; its message carries no rule text. */
class MirrorSetupError extends Error {
  override name = 'MirrorSetupError';
}

/**
 * Mirrors learned rules into Amazon Bedrock AgentCore Memory: one record under a
 * user-preference strategy and one under a semantic strategy, both namespaced by the
 * rule's preference key. The local store stays the source of truth, so nothing here
 * ever throws: an AWS failure is one log line carrying the rule id only.
 */
export class AgentCoreMemoryMirror implements MemoryMirror {
  private readonly data: BedrockAgentCoreClient;
  private readonly control: BedrockAgentCoreControlClient;
  private readonly memoryId: string | undefined;
  private readonly memoryName: string;
  private readonly actorId: string;
  private readonly log: (line: string) => void;
  private readonly sleep: (ms: number) => Promise<void>;
  private resolving: Promise<ResolvedMemory> | undefined;

  constructor(opts: AgentCoreMemoryMirrorOptions) {
    this.data = opts.data;
    this.control = opts.control;
    this.memoryId = opts.memoryId;
    this.memoryName = opts.memoryName ?? DEFAULT_MEMORY_NAME;
    this.actorId = opts.actorId;
    this.log = opts.log ?? logLine;
    this.sleep = opts.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  }

  async ruleLearned(rule: Rule): Promise<string[]> {
    if (rule.source !== 'learned') return [];
    try {
      const memory = await this.memory();
      const records = memoryRecordsFor(rule, memory, this.actorId);
      const out = await this.data.send(
        new BatchCreateMemoryRecordsCommand({ memoryId: memory.memoryId, records }),
      );
      const failed = out.failedRecords ?? [];
      if (failed.length > 0) {
        this.log(
          `handoff: agentcore memory: rule ${rule.id}: ${failed.length} of ${records.length} records not written (${failedSummary(failed)})`,
        );
      }
      const order = records.map((r) => r.requestIdentifier);
      return (out.successfulRecords ?? [])
        .filter((r): r is MemoryRecordOutput & { memoryRecordId: string } => Boolean(r.memoryRecordId))
        .sort((a, b) => rank(order, a.requestIdentifier) - rank(order, b.requestIdentifier))
        .map((r) => r.memoryRecordId);
    } catch (error) {
      this.log(`handoff: agentcore memory: rule ${rule.id} not mirrored: ${describeError(error)}`);
      return [];
    }
  }

  async ruleRetired(rule: Rule, mirrorIds: readonly string[]): Promise<void> {
    if (mirrorIds.length === 0) return;
    try {
      const memory = await this.memory();
      const out = await this.data.send(
        new BatchDeleteMemoryRecordsCommand({
          memoryId: memory.memoryId,
          records: mirrorIds.map((memoryRecordId) => ({ memoryRecordId })),
        }),
      );
      const failed = out.failedRecords ?? [];
      if (failed.length > 0) {
        this.log(
          `handoff: agentcore memory: rule ${rule.id}: ${failed.length} of ${mirrorIds.length} records not deleted (${failedSummary(failed)})`,
        );
      }
    } catch (error) {
      this.log(`handoff: agentcore memory: rule ${rule.id} not retired: ${describeError(error)}`);
    }
  }

  /** The memory and its strategy ids, resolved once per process; a failed attempt is retried next time. */
  private memory(): Promise<ResolvedMemory> {
    this.resolving ??= this.resolveMemory().catch((error: unknown) => {
      this.resolving = undefined;
      throw error;
    });
    return this.resolving;
  }

  private async resolveMemory(): Promise<ResolvedMemory> {
    const id = this.memoryId ?? (await this.findMemory()) ?? (await this.createMemory());
    const memory = await this.waitUntilActive(id);
    return {
      memoryId: id,
      preferenceStrategyId: strategyId(memory, PREFERENCE_STRATEGY_NAME, 'USER_PREFERENCE'),
      semanticStrategyId: strategyId(memory, SEMANTIC_STRATEGY_NAME, 'SEMANTIC'),
    };
  }

  /**
   * The id of the memory named `memoryName`. ListMemories returns no names, but a
   * memory's id is its name, a dash and ten letters or digits, and names cannot
   * contain a dash, so the id prefix identifies the name.
   */
  private async findMemory(): Promise<string | undefined> {
    const idOfName = new RegExp(`^${escapeRegExp(this.memoryName)}-[a-zA-Z0-9]{10}$`);
    const found: { id: string; active: boolean }[] = [];
    let nextToken: string | undefined;
    do {
      const page = await this.control.send(
        new ListMemoriesCommand({ maxResults: 50, ...(nextToken ? { nextToken } : {}) }),
      );
      for (const m of page.memories ?? []) {
        if (m.id && idOfName.test(m.id) && m.status !== 'DELETING' && m.status !== 'FAILED') {
          found.push({ id: m.id, active: m.status === 'ACTIVE' });
        }
      }
      nextToken = page.nextToken;
    } while (nextToken);
    return (found.find((m) => m.active) ?? found[0])?.id;
  }

  private async createMemory(): Promise<string> {
    try {
      const out = await this.control.send(new CreateMemoryCommand(createMemoryInput(this.memoryName)));
      const id = out.memory?.id;
      if (!id) throw new MirrorSetupError(`CreateMemory for ${this.memoryName} returned no memory id`);
      this.log(`handoff: agentcore memory: created memory ${id}`);
      return id;
    } catch (error) {
      // Another process created it first: use theirs.
      if (isError(error) && error.name === 'ConflictException') {
        const id = await this.findMemory();
        if (id) return id;
      }
      throw error;
    }
  }

  private async waitUntilActive(memoryId: string): Promise<Memory> {
    for (let attempt = 0; ; attempt++) {
      const { memory } = await this.control.send(new GetMemoryCommand({ memoryId }));
      const status = memory?.status;
      if (memory && status === 'ACTIVE') return memory;
      if (status === 'FAILED' || status === 'DELETING') {
        throw new MirrorSetupError(`memory ${memoryId} is ${status}`);
      }
      const delay = POLL_DELAYS_MS[attempt];
      if (delay === undefined) {
        throw new MirrorSetupError(
          `memory ${memoryId} not ACTIVE after ${attempt + 1} polls (${status ?? 'unknown'})`,
        );
      }
      await this.sleep(delay);
    }
  }
}

/** The CreateMemory request for a new mirror memory. */
export function createMemoryInput(name: string): CreateMemoryInput {
  return {
    clientToken: randomUUID(),
    name,
    description:
      'Handoff: rules learned from your answers (a mirror; the local store is the source of truth).',
    eventExpiryDuration: EVENT_EXPIRY_DAYS,
    memoryStrategies: [
      {
        userPreferenceMemoryStrategy: {
          name: PREFERENCE_STRATEGY_NAME,
          description: 'How the person wants mail handled, one preference per sender, domain or keyword set.',
          namespaceTemplates: ['/handoff/{actorId}/preferences'],
        },
      },
      {
        semanticMemoryStrategy: {
          name: SEMANTIC_STRATEGY_NAME,
          description: 'Facts about the rules Handoff has learned.',
          namespaceTemplates: ['/handoff/{actorId}/facts'],
        },
      },
    ],
  };
}

function strategyId(memory: Memory, name: string, type: string): string {
  const strategies: MemoryStrategy[] = memory.strategies ?? [];
  const strategy = strategies.find((s) => s.name === name) ?? strategies.find((s) => s.type === type);
  if (!strategy?.strategyId) {
    throw new MirrorSetupError(`memory ${memory.id ?? '?'} has no ${type} strategy`);
  }
  return strategy.strategyId;
}

/** What a rule is about, scoped by workflow: `inbox/sender:ana@vendor.com`. */
export function preferenceKey(rule: Pick<Rule, 'workflow_id' | 'match'>): string {
  return `${rule.workflow_id ?? 'all'}/${matchKey(rule.match)}`;
}

/** The preference key as namespace segments: `inbox/sender-ana-at-vendor-com`. */
export function encodedPreferenceKey(rule: Pick<Rule, 'workflow_id' | 'match'>): string {
  return `${namespaceSegment(rule.workflow_id ?? 'all')}/${namespaceSegment(matchKey(rule.match))}`;
}

function matchKey(match: RuleMatch): string {
  if ('sender' in match) return `sender:${match.sender.trim().toLowerCase()}`;
  if ('domain' in match) return `domain:${normaliseDomain(match.domain)}`;
  return `keywords:${normalisedKeywords(match.keywords).join(',')}`;
}

function normalisedKeywords(keywords: readonly string[]): string[] {
  return [...new Set(keywords.map((k) => k.trim().toLowerCase()).filter(Boolean))].sort();
}

/**
 * One namespace segment: '@' reads as '-at-', anything else outside [a-zA-Z0-9_-]
 * becomes '-', runs of dashes collapse. Long values keep a readable head and a hash.
 */
export function namespaceSegment(value: string): string {
  const readable =
    value
      .replace(/@/g, '-at-')
      .replace(/[^a-zA-Z0-9_-]+/g, '-')
      .replace(/-{2,}/g, '-')
      .replace(/^-+|-+$/g, '') || '_';
  if (readable.length <= MAX_SEGMENT) return readable;
  return `${readable.slice(0, MAX_SEGMENT - 13)}-${shortHash(value)}`;
}

/** A requestIdentifier from the rule id and a suffix, within [a-zA-Z0-9_-]{1,80}. */
export function requestIdentifier(ruleId: string, suffix: 'pref' | 'fact'): string {
  const safe = ruleId.replace(/[^a-zA-Z0-9_-]/g, '_') || 'rule';
  const base = safe.length <= 70 ? safe : `${safe.slice(0, 57)}-${shortHash(ruleId)}`;
  return `${base}-${suffix}`;
}

function shortHash(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 12);
}

/** The two records for a learned rule: a preference the person would recognise, and a fact. */
export function memoryRecordsFor(
  rule: Rule,
  memory: Pick<ResolvedMemory, 'preferenceStrategyId' | 'semanticStrategyId'>,
  actorId: string,
): MemoryRecordCreateInput[] {
  const key = encodedPreferenceKey(rule);
  const actor = namespaceSegment(actorId);
  const timestamp = recordTime(rule.created_at);
  return [
    {
      requestIdentifier: requestIdentifier(rule.id, 'pref'),
      memoryStrategyId: memory.preferenceStrategyId,
      namespaces: [`/handoff/${actor}/preferences/${key}`],
      content: { text: preferenceText(rule) },
      timestamp,
    },
    {
      requestIdentifier: requestIdentifier(rule.id, 'fact'),
      memoryStrategyId: memory.semanticStrategyId,
      namespaces: [`/handoff/${actor}/facts/${key}`],
      content: { text: factText(rule) },
      timestamp,
    },
  ];
}

/** `For workflow inbox: mail from anyone at vendor.com → archive (learned from decision dec_1; note: "…")` */
export function preferenceText(rule: Rule): string {
  const scope = rule.workflow_id ? `For workflow ${rule.workflow_id}` : 'For every workflow';
  const why = [rule.decision_id ? `learned from decision ${rule.decision_id}` : 'learned from your answers'];
  const note = clippedNote(rule.note);
  if (note) why.push(`note: "${note}"`);
  return `${scope}: ${describeMatch(rule.match)} → ${rule.action} (${why.join('; ')})`;
}

/** A plain statement of the rule for semantic recall. */
export function factText(rule: Rule): string {
  const scope = rule.workflow_id
    ? `in the Handoff workflow "${rule.workflow_id}"`
    : 'in every Handoff workflow';
  const source = rule.decision_id
    ? `the person's answer to decision ${rule.decision_id}`
    : "the person's answers";
  const about = rule.item_id ? ` about item ${rule.item_id}` : '';
  const note = clippedNote(rule.note);
  return (
    `${capitalise(scope)}, ${describeMatch(rule.match)} gets the action "${rule.action}". ` +
    `Rule ${rule.id} was learned on ${rule.created_at.slice(0, 10)} from ${source}${about}, ` +
    `with confidence ${rule.confidence}.` +
    (note ? ` The person noted: "${note}".` : '')
  );
}

function describeMatch(match: RuleMatch): string {
  if ('sender' in match) return `mail from ${match.sender.trim().toLowerCase()}`;
  if ('domain' in match) return `mail from anyone at ${normaliseDomain(match.domain)}`;
  const quoted = normalisedKeywords(match.keywords).map((k) => `"${k}"`);
  const last = quoted.pop();
  return `mail mentioning ${quoted.length > 0 ? `${quoted.join(', ')} and ${last}` : (last ?? '')}`;
}

function clippedNote(note: string | null): string | null {
  const text = note?.replace(/\s+/g, ' ').trim();
  if (!text) return null;
  return text.length <= MAX_NOTE ? text : `${text.slice(0, MAX_NOTE - 1)}…`;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function recordTime(createdAt: string): Date {
  const time = new Date(createdAt);
  return Number.isNaN(time.getTime()) ? new Date() : time;
}

function rank(order: readonly (string | undefined)[], id: string | undefined): number {
  const i = order.indexOf(id);
  return i === -1 ? order.length : i;
}

function failedSummary(failed: readonly MemoryRecordOutput[]): string {
  return failed
    .map((f) => `${f.requestIdentifier ?? f.memoryRecordId ?? '?'}: ${f.errorCode ?? f.status ?? 'failed'}`)
    .join(', ');
}

/**
 * One line about an error. A service error is named by type, HTTP status and request
 * id only: its message may echo request values (the namespaces carry the match).
 */
function describeError(error: unknown): string {
  if (!isError(error)) return 'unknown error';
  const meta = (error as { $metadata?: { httpStatusCode?: number; requestId?: string } }).$metadata;
  if (meta) {
    const status = meta.httpStatusCode ? ` HTTP ${meta.httpStatusCode}` : '';
    const request = meta.requestId ? ` request ${meta.requestId}` : '';
    return `${error.name}${status}${request}`;
  }
  return `${error.name}: ${error.message.replace(/\s+/g, ' ').slice(0, 200)}`;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export interface AgentCoreMirrorEnv {
  USE_AGENTCORE_MEMORY?: boolean | undefined;
  AGENTCORE_MEMORY_ID?: string | undefined;
  AWS_REGION?: string | undefined;
  AGENTCORE_ACTOR_ID?: string | undefined;
}

/** The mirror the environment asks for: none unless USE_AGENTCORE_MEMORY is set. */
export function mirrorFromEnv(env: AgentCoreMirrorEnv, workspace = DEFAULT_WORKSPACE): MemoryMirror {
  if (!env.USE_AGENTCORE_MEMORY) return noMirror;
  const region = regionOption(env.AWS_REGION);
  return new AgentCoreMemoryMirror({
    data: new BedrockAgentCoreClient(region),
    control: new BedrockAgentCoreControlClient(region),
    ...(env.AGENTCORE_MEMORY_ID ? { memoryId: env.AGENTCORE_MEMORY_ID } : {}),
    actorId: actorFor(env.AGENTCORE_ACTOR_ID || 'default-user', workspace),
  });
}

/**
 * The AgentCore actor a workspace's rules are mirrored under: the configured actor for
 * `default` (where they always were), `<actor>_<workspace>` for any other, so one
 * workspace's rules never share a namespace with another's.
 */
export function actorFor(actor: string, workspace: string): string {
  return workspace === DEFAULT_WORKSPACE ? actor : `${actor}_${workspace}`;
}
