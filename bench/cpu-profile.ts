/**
 * Summarises a V8 `.cpuprofile` (from `node --cpu-prof`): self time by function and by
 * area (project folder, npm package, node internals, GC), for the benchmark report.
 */
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

export interface ProfileEntry {
  name: string;
  ms: number;
  share: number;
}

export interface ProfileSummary {
  file: string;
  total_ms: number;
  /** Self time by function, heaviest first. */
  top_functions: ProfileEntry[];
  /** Self time by area (shared/<dir>, npm package, node internals, GC, idle), heaviest first. */
  by_area: ProfileEntry[];
  /** Inclusive time of project (shared/) functions, heaviest first: what each engine step costs with its callees. */
  top_project_inclusive: ProfileEntry[];
}

/** Where a script URL belongs: `shared/runs`, `@strands-agents/sdk`, `node:internal`, ... */
export function areaOf(url: string, functionName: string): string {
  if (url === '') {
    if (functionName.startsWith('(')) return functionName; // (garbage collector), (idle), (program)
    return '(native)';
  }
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  const project = /\/(shared|bench|bin|lib)\/([^/]+)\//.exec(url);
  if (project) return `${project[1]}/${project[2]}`;
  if (url.startsWith('node:')) return 'node:internal';
  return url;
}

function frameName(node: ProfileNode): string {
  const { functionName, url, lineNumber } = node.callFrame;
  const file = url.replace(/^file:\/\//, '').replace(/^.*\/(node_modules|shared|bench)\//, '$1/');
  // tsx-compiled project files carry no useful line numbers in the profile.
  const line = file.endsWith('.ts') ? '' : `:${lineNumber + 1}`;
  return `${functionName || '(anonymous)'} ${file ? `${file}${line}` : ''}`.trim();
}

function top(map: Map<string, number>, total: number, count: number): ProfileEntry[] {
  return [...map.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([name, us]) => ({
      name,
      ms: Math.round(us / 100) / 10,
      share: Math.round((us / total) * 1000) / 10,
    }));
}

/** Reads a `.cpuprofile` and returns its heaviest functions and areas. */
export async function summariseProfile(file: string, count = 15): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const selfUs = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) {
    // timeDeltas[i] is the gap before sample i; the next gap is the time sample i stood for.
    const us = deltas[i + 1] ?? 0;
    const id = samples[i]!;
    selfUs.set(id, (selfUs.get(id) ?? 0) + Math.max(0, us));
  }
  const total = [...selfUs.values()].reduce((s, v) => s + v, 0) || 1;
  const byFunction = new Map<string, number>();
  const byArea = new Map<string, number>();
  const projectInclusive = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (!node) continue;
    const name = frameName(node);
    byFunction.set(name, (byFunction.get(name) ?? 0) + us);
    const area = areaOf(node.callFrame.url, node.callFrame.functionName);
    byArea.set(area, (byArea.get(area) ?? 0) + us);
    // Inclusive time for project frames: count each distinct project frame once per stack.
    const seen = new Set<string>();
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur)) {
      const frame = byId.get(cur);
      if (!frame || !frame.callFrame.url.includes('/shared/')) continue;
      const key = frameName(frame);
      if (seen.has(key)) continue;
      seen.add(key);
      projectInclusive.set(key, (projectInclusive.get(key) ?? 0) + us);
    }
  }
  return {
    file,
    total_ms: Math.round(total / 1000),
    top_functions: top(byFunction, total, count),
    by_area: top(byArea, total, count),
    top_project_inclusive: top(projectInclusive, total, count),
  };
}
