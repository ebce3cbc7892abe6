import type { Credentials } from '../credentials/credentials.ts';
import type { FeedEvent } from '../events/feed.ts';
import type { MemoryMirror } from '../memory/mirror.ts';
import type { ModelFactory } from '../models/provider.ts';
import type { DecisionLinks } from '../links/decision-links.ts';
import type { Notifier } from '../notify/notifier.ts';
import type { Store } from '../store/store.ts';
import type { Dispatcher } from './dispatch.ts';
import type { Run } from '../records/runs.ts';

/** What the run engine needs from its host (CLI, local server, Lambda). Made once, passed in. */
export interface EngineDeps {
  /** The id of the workspace this engine works in; `store` holds only its records. */
  workspace: string;
  store: Store;
  models: ModelFactory;
  notifier: Notifier;
  /** Signs the deep link to a decision. */
  links: DecisionLinks;
  /** Sealed credentials of the integrations a workflow's actions name; opened only when a run uses them. */
  credentials: Credentials;
  /** Where learned rules are mirrored (AgentCore Memory), if anywhere. */
  mirror: MemoryMirror;
  /** Null: every node runs in this process. Else each node runs where the dispatcher sends it. */
  dispatcher: Dispatcher | null;
  emit: (channel: string, kind: FeedEvent['kind'], text: string, data?: Record<string, unknown>) => void;
  /**
   * Set where resumes are worked in another process (the local server's run children): a run
   * taken for its resume (its last question answered or expired) is handed over, never driven
   * here, so the answering request (and the server's thread) does not carry it. Absent: here.
   */
  resumeElsewhere?: (run: Run) => void;
  /**
   * Set where a batch of answers is carried out in another process (the local server's run
   * children): the answered items of runs that still wait are handed over after the batch.
   */
  carryElsewhere?: (decisionIds: string[]) => void;
  /**
   * Told after a workflow was saved, paused, resumed or removed outside the workflow routes
   * (the assistant), where schedules are kept apart from the store (AWS: a `handoff.workflow`
   * event for the schedule-sync function). Absent: schedules read the store (the local scheduler).
   */
  onWorkflowChange?: (workflowId: string, change: 'saved' | 'removed', workspace: string) => Promise<void>;
  /** The time now, where a test sets it (a deleted rule's undo window); absent: the system clock. */
  clock?: () => Date;
  settings: {
    confidenceThreshold: number;
    decisionTtlHours: number;
    uiBaseUrl: string;
    /** Items per fetch_items page: the executor's context stays bounded. */
    pageSize: number;
  };
}

/** Items per fetch_items page, unless a host says otherwise. */
export const DEFAULT_PAGE_SIZE = 10;
