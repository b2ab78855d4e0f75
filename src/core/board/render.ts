/**
 * Rendered status of a board: the matrix (tasks × status by stage and by role), stages with the
 * workflow and dependency diagrams, and a card per task. Pure: same board, same bytes.
 */
import { entryOf, handoffPath, lastSubmit, type Board } from "./reader.js";
import { BOARD_EDGES, STATUSES, type Definition } from "./formats.js";
import { cell, compareIds, countBy, mermaidId, mermaidLabel, relativeLink, stamp, table } from "../kernel/markdown.js";
import type { RenderPlan } from "../kernel/stale.js";

/** Above this many tasks the dependency diagram shows only unfinished tasks. */
const DAG_LIMIT = 300;

/** What rendering would produce, without rendering: the stamp every file starts with, and the paths. */
export function boardRenderPlan(board: Board, root: string): RenderPlan {
  const source = `${board.options.ledger} revision ${board.ledger.revision}`;
  return { stamp: stamp(source), files: [`${root}/matrix.md`, `${root}/stages.md`], cards: board.definitions };
}

export function renderBoard(board: Board, root: string): Map<string, string> {
  const files = new Map<string, string>();
  const source = `${board.options.ledger} revision ${board.ledger.revision}`;
  const definitions = [...board.definitions.values()].sort((a, b) => compareIds(a.id, b.id));
  files.set(`${root}/matrix.md`, renderMatrix(board, definitions, root, source));
  files.set(`${root}/stages.md`, renderStages(board, definitions, source));
  for (const definition of definitions) {
    files.set(`${root}/cards/${definition.id}.md`, renderCard(board, definition, `${root}/cards`, source));
  }
  return files;
}

function statusCounts(board: Board, definitions: readonly Definition[]): string {
  const counts = countBy(definitions, (definition) => entryOf(board, definition.id).status);
  return STATUSES.map((status) => `${status} ${counts.get(status) ?? 0}`).join(" · ");
}

function renderMatrix(board: Board, definitions: readonly Definition[], root: string, source: string): string {
  const out = [stamp(source), "", "# Task matrix", "", `Rendered from ${source}: ${definitions.length} task(s).`, ""];
  out.push(`**All:** ${statusCounts(board, definitions)}`, "");
  out.push("## By stage", "");
  const stages = [...new Set(definitions.map((definition) => definition.stage))].sort(compareIds);
  for (const stage of stages) {
    const tasks = definitions.filter((definition) => definition.stage === stage);
    out.push(`### ${cell(stage)}`, "", statusCounts(board, tasks), "");
    out.push(
      table(
        ["task", "title", "role", "status", "owner"],
        tasks.map((definition) => {
          const entry = entryOf(board, definition.id);
          return [
            `[${definition.id}](${relativeLink(root, `${root}/cards/${definition.id}.md`)})`,
            cell(definition.title),
            cell(definition.role),
            entry.status,
            cell(entry.owner ?? ""),
          ];
        }),
      ),
      "",
    );
  }
  out.push("## By role", "");
  const roles = [...new Set(definitions.map((definition) => definition.role))].sort(compareIds);
  out.push(
    table(
      ["role", ...STATUSES, "total"],
      roles.map((role) => {
        const tasks = definitions.filter((definition) => definition.role === role);
        const counts = countBy(tasks, (definition) => entryOf(board, definition.id).status);
        return [cell(role), ...STATUSES.map((status) => counts.get(status) ?? 0), tasks.length];
      }),
    ),
    "",
  );
  return out.join("\n");
}

function renderStages(board: Board, definitions: readonly Definition[], source: string): string {
  const out = [stamp(source), "", "# Stages", "", `Rendered from ${source}.`, ""];
  const stages = [...new Set(definitions.map((definition) => definition.stage))].sort(compareIds);
  out.push(
    table(
      ["stage", ...STATUSES, "total", "done %"],
      stages.map((stage) => {
        const tasks = definitions.filter((definition) => definition.stage === stage);
        const counts = countBy(tasks, (definition) => entryOf(board, definition.id).status);
        const done = counts.get("done") ?? 0;
        return [
          cell(stage),
          ...STATUSES.map((status) => counts.get(status) ?? 0),
          tasks.length,
          tasks.length === 0 ? 0 : Math.round((done / tasks.length) * 100),
        ];
      }),
    ),
    "",
  );
  out.push("## Workflow", "", "```mermaid", "stateDiagram-v2", "  [*] --> todo");
  for (const edge of BOARD_EDGES) {
    if (edge.from === edge.to) continue;
    out.push(`  ${edge.from} --> ${edge.to}: ${edge.action}${edge.bot ? " (taskgate)" : ""}`);
  }
  out.push("  done --> [*]", "```", "");

  out.push("## Dependencies", "");
  let shown = definitions;
  if (definitions.length > DAG_LIMIT) {
    shown = definitions.filter((definition) => entryOf(board, definition.id).status !== "done").slice(0, DAG_LIMIT);
    out.push(
      `Showing ${shown.length} of ${definitions.length} tasks (unfinished ones first; done tasks are left out).`,
      "",
    );
  }
  const index = new Map(shown.map((definition, position) => [definition.id, mermaidId("t", position)]));
  out.push("```mermaid", "flowchart LR");
  for (const definition of shown) {
    const entry = entryOf(board, definition.id);
    out.push(`  ${index.get(definition.id)}[${mermaidLabel(`${definition.id}: ${entry.status}`)}]`);
  }
  for (const definition of shown) {
    for (const dependency of definition.depends_on) {
      const from = index.get(dependency);
      if (from) out.push(`  ${from} --> ${index.get(definition.id)}`);
    }
    for (const resolver of entryOf(board, definition.id).blocked_by) {
      const from = index.get(resolver);
      if (from) out.push(`  ${from} -. resolves .-> ${index.get(definition.id)}`);
    }
  }
  const blocked = shown.filter((definition) => entryOf(board, definition.id).status === "blocked");
  const done = shown.filter((definition) => entryOf(board, definition.id).status === "done");
  out.push("  classDef blocked fill:#fdd,stroke:#c00,stroke-width:2px");
  out.push("  classDef done fill:#dfd,stroke:#080");
  if (blocked.length > 0)
    out.push(`  class ${blocked.map((definition) => index.get(definition.id)).join(",")} blocked`);
  if (done.length > 0) out.push(`  class ${done.map((definition) => index.get(definition.id)).join(",")} done`);
  out.push("```", "");
  return out.join("\n");
}

function renderCard(board: Board, definition: Definition, dir: string, source: string): string {
  const entry = entryOf(board, definition.id);
  const link = (id: string) => `[${id}](${relativeLink(dir, `${dir}/${id}.md`)}) (${entryOf(board, id).status})`;
  const out = [stamp(source), "", `# ${definition.id}: ${cell(definition.title)}`, ""];
  out.push(
    table(
      ["field", "value"],
      [
        ["status", entry.status],
        ["owner", cell(entry.owner ?? "(none)")],
        ["role", cell(definition.role)],
        ["stage", cell(definition.stage)],
        ["reviewer role", cell(definition.reviewer_role)],
        ["depends on", definition.depends_on.map(link).join(", ") || "(nothing)"],
        ["blocked by", entry.blocked_by.map(link).join(", ") || "(nothing)"],
        ["external", definition.external ? `yes${entry.external_wait ? ", waiting" : ""}` : "no"],
        ["paths", definition.paths.map((path) => `\`${cell(path)}\``).join(", ") || "(none)"],
      ],
    ),
    "",
  );
  if (definition.outcome) out.push("## Outcome", "", definition.outcome.trim(), "");
  if (definition.steps.length > 0)
    out.push("## Steps", "", ...definition.steps.map((item, i) => `${i + 1}. ${item}`), "");
  if (definition.checks.length > 0) out.push("## Checks", "", ...definition.checks.map((item) => `- ${item}`), "");
  const submit = lastSubmit(entry);
  const handoff = submit?.handoff ?? handoffPath(board.options, definition.id);
  out.push("## Links", "");
  if (submit?.evidence) out.push(`- evidence: [${cell(submit.evidence)}](${relativeLink(dir, submit.evidence)})`);
  out.push(`- handoff: [${cell(handoff)}](${relativeLink(dir, handoff)})`, "");
  out.push("## History", "");
  if (entry.history.length === 0) out.push("(no history yet)", "");
  else {
    out.push(
      table(
        ["at", "by", "action", "from", "to", "note"],
        entry.history.map((item) => [
          cell(item.at),
          cell(item.by),
          item.action,
          item.from,
          item.to,
          cell(item.note ?? ""),
        ]),
      ),
      "",
    );
  }
  return out.join("\n");
}
