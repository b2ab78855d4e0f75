/** The verbs of the phases preset: `new`, `move`, `upgrade` and `scope` (`can-edit` is in agent-guard.ts, for both presets). */
import { moveTask, newTask, taskScope, upgradeTasks } from "../core/index.js";
import { actorOf, mutate, one, openWorkspace, readTree } from "./authoring.js";
import type { CommandRun } from "./commands.js";
import { EXIT, UsageError } from "./io.js";

/** `new <task-id>`: a task folder at `new`. */
export async function newCommand(run: CommandRun): Promise<number> {
  const ws = await openWorkspace(run);
  const id = one(run, "task id");
  const actor = await actorOf(run, ws, false);
  return mutate(
    run,
    ws,
    (snapshot) => newTask({ config: ws.config, snapshot, actor }, id),
    (facts) => `created ${String(facts.task ?? "")} at ${String(facts.state)}`,
  );
}

/** `move <task-id> <state>`: the new state, when the workflow allows the move. */
export async function move(run: CommandRun): Promise<number> {
  const ws = await openWorkspace(run);
  if (run.positionals.length !== 2) throw new UsageError("move needs a task id and a state");
  const [id, state] = run.positionals as [string, string];
  const actor = await actorOf(run, ws, false);
  return mutate(
    run,
    ws,
    (snapshot) => moveTask({ config: ws.config, snapshot, actor }, id, state),
    (facts) => `${String(facts.task ?? "")} moved ${String(facts.from)} → ${String(facts.to)}`,
  );
}

/** `upgrade [<task-id>...]`: a `.state` for folders without one, from their artifacts. */
export async function upgrade(run: CommandRun): Promise<number> {
  const ws = await openWorkspace(run);
  const actor = await actorOf(run, ws, false);
  return mutate(
    run,
    ws,
    (snapshot) => upgradeTasks({ config: ws.config, snapshot, actor }, run.positionals),
    upgradeSummary,
  );
}

function upgradeSummary(facts: Readonly<Record<string, unknown>>): string {
  const tasks = (facts.tasks as { task: string; state: string; from: string; adopted: boolean }[]) ?? [];
  if (tasks.length === 0) return "every task folder already has a .state file";
  const groups = new Map<string, { from: string; adopted: boolean; ids: string[] }>();
  for (const item of tasks) {
    const group = groups.get(item.state) ?? { from: item.from, adopted: item.adopted, ids: [] };
    group.ids.push(item.task);
    groups.set(item.state, group);
  }
  const adopted = tasks.filter((item) => item.adopted).length;
  return [
    `tracked ${tasks.length} folder(s)` +
      (adopted > 0 ? `; ${adopted} past a gate, adopted once a review approves the pull request` : ""),
    ...[...groups].map(
      ([state, group]) => `  at ${state} (${group.from}${group.adopted ? ", adopted" : ""}): ${group.ids.join(", ")}`,
    ),
  ].join("\n");
}

/** `scope <task-id>`: what the task may edit now and what it never may. */
export async function scope(run: CommandRun): Promise<number> {
  const ws = await openWorkspace(run);
  const scope = taskScope({ config: ws.config, snapshot: await readTree(ws) }, one(run, "task id"));
  if (run.json) run.printJson(scope);
  else {
    run.io.stdout(
      [
        `task ${scope.task} at ${scope.state}`,
        "  may edit:",
        ...scope.editable.map((item) => `    ${item}`),
        "  out of scope:",
        ...scope.outOfScope.map((item) => `    ${item}`),
        `  rendered (derived, in every scope): ${scope.rendered}`,
      ].join("\n") + "\n",
    );
  }
  return EXIT.ok;
}
