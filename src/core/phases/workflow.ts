/**
 * A workflow is data (states, edges, gates, artifacts, edit scopes). This module merges a preset with
 * a config's overrides, checks that the result is a sound graph, and precomputes what the rules ask
 * per state: which artifacts must exist, which may exist, which gates lie behind it.
 */
import type { ConfigIssue, WorkflowOverrideConfig } from "../kernel/config.js";
import { ADOPTED_PHASE } from "./adoption.js";
import type { EdgeDef, EditScope, StateDef, WorkflowDef } from "./preset.js";

export interface Workflow {
  readonly def: WorkflowDef;
  readonly stateNames: readonly string[];
  has(state: string): boolean;
  state(state: string): StateDef | undefined;
  edgesFrom(state: string): readonly EdgeDef[];
  edge(from: string, to: string): EdgeDef | undefined;
  /** The phase an approval line names for a gate edge: the phase of its source state. */
  gatePhase(edge: EdgeDef): string;
  /** Gate edges whose approval the bot records by writing the target state (source is awaiting). */
  isBotGate(edge: EdgeDef): boolean;
  /** Artifact files that must exist in a task at this state (phases every path to it has left). */
  requiredArtifacts(state: string): readonly string[];
  /** Artifact files that may exist at this state; `looped` widens it for tasks sent back for rework. */
  allowedArtifacts(state: string, looped: boolean): ReadonlySet<string>;
  /** artifact file → phase. */
  readonly artifacts: ReadonlyMap<string, string>;
  /** Bot gates that every path to this state crosses, or that end in it. */
  gatesBehind(state: string): readonly EdgeDef[];
  /** Gate edges that lead back to an earlier state (rework loops). */
  isBackEdge(edge: EdgeDef): boolean;
  /** Cheapest path by the given edge cost; `undefined` when `to` is unreachable from `from`. */
  findPath(from: string, to: string, cost: (edge: EdgeDef) => number): EdgeDef[] | undefined;
  editScope(state: string): readonly EditScope[];
}

export type WorkflowResult = { ok: true; workflow: Workflow } | { ok: false; issues: ConfigIssue[] };

/**
 * Merges overrides into a preset; later keys override, `null` removes. Pure. States and phases are
 * kept in objects without a prototype, so a name like `constructor` is only ever a name.
 */
export function mergeWorkflow(preset: WorkflowDef, override: WorkflowOverrideConfig | undefined): WorkflowDef {
  const states = dictionary<StateDef>(preset.states);
  const phases = dictionary<string | null>(preset.phases);
  if (!override) return { ...preset, states, phases };
  const dropped = new Set<string>();
  for (const [name, value] of Object.entries(override.states ?? {})) {
    if (value === null) {
      delete states[name];
      dropped.add(name);
    } else {
      const base = states[name];
      states[name] = {
        ...base,
        ...(value.phase !== undefined && { phase: value.phase }),
        ...(value.awaiting !== undefined && { awaiting: value.awaiting }),
        ...(value.terminal !== undefined && { terminal: value.terminal }),
        edit: value.edit ?? base?.edit ?? ["task"],
      };
    }
  }
  for (const [name, value] of Object.entries(override.phases ?? {})) {
    if (value === null) delete phases[name];
    else phases[name] = value.artifact ?? null;
  }
  const removed = new Set((override.remove_transitions ?? []).map((edge) => `${edge.from}\u0000${edge.to}`));
  const added = new Map((override.transitions ?? []).map((edge) => [`${edge.from}\u0000${edge.to}`, edge]));
  const transitions: EdgeDef[] = [];
  for (const edge of preset.transitions) {
    const key = `${edge.from}\u0000${edge.to}`;
    // Removing a state removes the preset's edges that touch it.
    if (removed.has(key) || dropped.has(edge.from) || dropped.has(edge.to)) continue;
    transitions.push(added.get(key) ?? edge);
    added.delete(key);
  }
  for (const [key, edge] of added) if (!removed.has(key)) transitions.push(edge);
  return {
    tasksDir: trimSlashes(override.tasks_dir ?? preset.tasksDir),
    initial: override.initial ?? preset.initial,
    states,
    phases,
    transitions,
    verdict: { ...preset.verdict, ...override.verdict },
  };
}

/** Builds the graph of a workflow definition, or explains what makes it unsound. */
export function buildWorkflow(def: WorkflowDef): WorkflowResult {
  const names = Object.keys(def.states);
  const known = new Set(names);
  const issues = nameIssues(def, known);
  const artifacts = artifactsOf(def, issues);
  if (!isPlainPath(def.tasksDir))
    issues.push({ path: "workflow.tasks_dir", message: `"${def.tasksDir}" must be a relative folder` });
  if (issues.length > 0) return { ok: false, issues };

  const graph = graphOf(def, names);
  const unreachable = unreachableIssues(def, names, graph);
  if (unreachable.length > 0) return { ok: false, issues: unreachable };

  const dominators = computeDominators(names, def.initial, graph.preds);
  const isBack = (edge: EdgeDef) => dominators.get(edge.from)!.has(edge.to);
  const { required, allowedStrict, allowedLooped, gatesBehind } = perState(def, names, graph, dominators, isBack);
  const { out } = graph;
  const workflow: Workflow = {
    def,
    stateNames: names,
    has: (state) => known.has(state),
    state: (state) => def.states[state],
    edgesFrom: (state) => out.get(state) ?? [],
    edge: (from, to) => out.get(from)?.find((edge) => edge.to === to),
    gatePhase: (edge) => def.states[edge.from]?.phase ?? edge.from,
    isBotGate: (edge) => Boolean(edge.gate && def.states[edge.from]?.awaiting),
    requiredArtifacts: (state) => required.get(state) ?? [],
    allowedArtifacts: (state, looped) => (looped ? allowedLooped : allowedStrict).get(state) ?? new Set(),
    artifacts,
    gatesBehind: (state) => gatesBehind.get(state) ?? [],
    isBackEdge: isBack,
    findPath: (from, to, cost) => cheapestPath(from, to, (state) => out.get(state) ?? [], cost),
    editScope: (state) => def.states[state]?.edit ?? ["task"],
  };
  return { ok: true, workflow };
}

/** Names that point nowhere: the initial state, the ends of transitions, the states' phases; reserved names. */
function nameIssues(def: WorkflowDef, known: ReadonlySet<string>): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  if (!known.has(def.initial))
    issues.push({ path: "workflow.initial", message: `unknown initial state "${def.initial}"` });
  for (const edge of def.transitions) {
    for (const end of ["from", "to"] as const) {
      if (!known.has(edge[end])) {
        issues.push({
          path: "workflow.transitions",
          message: `${edge.from} → ${edge.to}: unknown state "${edge[end]}"`,
        });
      }
    }
  }
  for (const [name, state] of Object.entries(def.states)) {
    if (state.phase !== undefined && !(state.phase in def.phases)) {
      issues.push({ path: `workflow.states.${name}.phase`, message: `unknown phase "${state.phase}"` });
    }
  }
  // An approval line naming `adopted` is an adoption's record: no phase or state may take the name.
  if (known.has(ADOPTED_PHASE)) {
    issues.push({ path: `workflow.states.${ADOPTED_PHASE}`, message: `"${ADOPTED_PHASE}" is reserved for adoptions` });
  }
  if (ADOPTED_PHASE in def.phases) {
    issues.push({ path: `workflow.phases.${ADOPTED_PHASE}`, message: `"${ADOPTED_PHASE}" is reserved for adoptions` });
  }
  return issues;
}

/** artifact file → phase; a file that is no plain name, or already another phase's, is an issue. */
function artifactsOf(def: WorkflowDef, issues: ConfigIssue[]): Map<string, string> {
  const artifacts = new Map<string, string>();
  for (const [phase, file] of Object.entries(def.phases)) {
    if (file === null) continue;
    if (!isPlainFileName(file)) {
      issues.push({ path: `workflow.phases.${phase}.artifact`, message: `"${file}" must be a plain file name` });
    } else if (artifacts.has(file)) {
      issues.push({
        path: `workflow.phases.${phase}.artifact`,
        message: `"${file}" is already the artifact of ${artifacts.get(file)}`,
      });
    } else artifacts.set(file, phase);
  }
  return artifacts;
}

/** The edges out of each state and the predecessors of each state. */
interface Graph {
  readonly out: Map<string, EdgeDef[]>;
  readonly preds: Map<string, string[]>;
}

function graphOf(def: WorkflowDef, names: readonly string[]): Graph {
  const out = new Map<string, EdgeDef[]>(names.map((name) => [name, []]));
  const preds = new Map<string, string[]>(names.map((name) => [name, []]));
  for (const edge of def.transitions) {
    out.get(edge.from)!.push(edge);
    preds.get(edge.to)!.push(edge.from);
  }
  return { out, preds };
}

function unreachableIssues(def: WorkflowDef, names: readonly string[], { out }: Graph): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const reachable = reach(def.initial, (state) => out.get(state)!.map((edge) => edge.to));
  for (const name of names) {
    if (!reachable.has(name))
      issues.push({
        path: `workflow.states.${name}`,
        message: `state "${name}" cannot be reached from "${def.initial}"`,
      });
  }
  return issues;
}

/** Per state: the artifacts that must exist, those that may (strictly, and after rework), the gates behind it. */
function perState(
  def: WorkflowDef,
  names: readonly string[],
  { out }: Graph,
  dominators: ReadonlyMap<string, ReadonlySet<string>>,
  isBack: (edge: EdgeDef) => boolean,
) {
  const forward = (state: string) =>
    out
      .get(state)!
      .filter((edge) => !isBack(edge))
      .map((edge) => edge.to);
  const all = (state: string) => out.get(state)!.map((edge) => edge.to);
  const artifactOfState = (state: string): string | undefined => {
    const phase = def.states[state]?.phase;
    const file = phase === undefined ? null : def.phases[phase];
    return file ?? undefined;
  };

  const required = new Map<string, string[]>();
  const allowedStrict = new Map<string, Set<string>>();
  const allowedLooped = new Map<string, Set<string>>();
  const gatesBehind = new Map<string, EdgeDef[]>();
  const botGates = def.transitions.filter((edge) => edge.gate && def.states[edge.from]?.awaiting);
  // States from which each state can be reached, along forward edges only and along all edges.
  const reachesStrict = new Map(names.map((name) => [name, reach(name, forward)]));
  const reachesAll = new Map(names.map((name) => [name, reach(name, all)]));
  for (const state of names) {
    const files = new Set<string>();
    for (const dominator of dominators.get(state)!) {
      if (dominator === state) continue;
      const file = artifactOfState(dominator);
      if (file) files.add(file);
    }
    required.set(state, [...files]);
    const strict = new Set<string>();
    const looped = new Set<string>();
    for (const source of names) {
      const file = artifactOfState(source);
      if (!file) continue;
      if (reachesStrict.get(source)!.has(state)) strict.add(file);
      if (reachesAll.get(source)!.has(state)) looped.add(file);
    }
    allowedStrict.set(state, strict);
    allowedLooped.set(state, looped);
    gatesBehind.set(
      state,
      botGates.filter((edge) => edge.to === state || dominators.get(state)!.has(edge.to)),
    );
  }
  return { required, allowedStrict, allowedLooped, gatesBehind };
}

function reach(start: string, next: (state: string) => readonly string[]): Set<string> {
  const seen = new Set([start]);
  const stack = [start];
  while (stack.length > 0) {
    for (const to of next(stack.pop()!)) {
      if (!seen.has(to)) {
        seen.add(to);
        stack.push(to);
      }
    }
  }
  return seen;
}

/** Iterative dominator sets; the graphs are a few dozen states, so the simple algorithm is plenty. */
function computeDominators(
  names: readonly string[],
  initial: string,
  preds: Map<string, string[]>,
): Map<string, Set<string>> {
  const dom = new Map<string, Set<string>>();
  for (const name of names) dom.set(name, name === initial ? new Set([initial]) : new Set(names));
  let changed = true;
  while (changed) {
    changed = false;
    for (const name of names) {
      if (name === initial) continue;
      let meet: Set<string> | undefined;
      for (const pred of preds.get(name)!) {
        const other = dom.get(pred)!;
        meet = meet === undefined ? new Set(other) : new Set([...meet].filter((state) => other.has(state)));
      }
      const next = new Set(meet ?? []);
      next.add(name);
      if (next.size !== dom.get(name)!.size) {
        dom.set(name, next);
        changed = true;
      }
    }
  }
  return dom;
}

/** Dijkstra over a tiny graph: the path that crosses the fewest costly edges, then the shortest. */
function cheapestPath(
  from: string,
  to: string,
  edgesFrom: (state: string) => readonly EdgeDef[],
  cost: (edge: EdgeDef) => number,
): EdgeDef[] | undefined {
  if (from === to) return [];
  const best = new Map<string, { cost: number; path: EdgeDef[] }>([[from, { cost: 0, path: [] }]]);
  const done = new Set<string>();
  for (;;) {
    let current: string | undefined;
    for (const [state, entry] of best) {
      if (done.has(state)) continue;
      if (current === undefined || entry.cost < best.get(current)!.cost) current = state;
    }
    if (current === undefined) return undefined;
    if (current === to) return best.get(current)!.path;
    done.add(current);
    const here = best.get(current)!;
    for (const edge of edgesFrom(current)) {
      // Each edge also costs a little, so among equally gated paths the shortest wins.
      const next = here.cost + cost(edge) * 1000 + 1;
      const known = best.get(edge.to);
      if (!done.has(edge.to) && (known === undefined || next < known.cost)) {
        best.set(edge.to, { cost: next, path: [...here.path, edge] });
      }
    }
  }
}

function isPlainFileName(name: string): boolean {
  return /^[^/\\\u0000]+$/.test(name) && name !== "." && name !== "..";
}

function isPlainPath(path: string): boolean {
  return (
    path.length > 0 &&
    !path.startsWith("/") &&
    path.split("/").every((part) => part !== "" && part !== "." && part !== "..")
  );
}

function dictionary<T>(from: Readonly<Record<string, T>>): Record<string, T> {
  return Object.assign(Object.create(null) as Record<string, T>, from);
}

function trimSlashes(path: string): string {
  return path.replace(/^\/+|\/+$/g, "");
}
