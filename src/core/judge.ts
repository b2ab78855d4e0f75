/**
 * The two pure entry points: `evaluate(config, base, head, pr)` judges a pull request and
 * `audit(config, snapshot)` judges a revision. Both return a `Report` and never throw on bad input.
 * They judge with the presets loaded so far (presets.ts): import them from `evaluate.ts`, which
 * loads both, unless the config was read by `loadConfig`, which loads the one it names.
 */
import { CONFIG_PATH, locateIssues, parseConfig, type Config, type ConfigIssue } from "./kernel/config.js";
import type { WorkflowModel } from "./kernel/model.js";
import { renderRootOf } from "./kernel/paths.js";
import { presetModel } from "./presets.js";
import { buildReport, configReport } from "./kernel/report.js";
import type { BotRecord, PrContext, Report, Snapshot, Violation } from "./kernel/types.js";
import { violation } from "./kernel/violations.js";
import { workflowOf } from "./phases/preset.js";

export { buildReport, configReport, neutralReport } from "./kernel/report.js";
export { workflowOf } from "./phases/preset.js";

export type ModelResult = { ok: true; model: WorkflowModel } | { ok: false; issues: ConfigIssue[] };

/** Builds the workflow model a validated config describes. */
export function createModel(config: Config): ModelResult {
  if (config.preset === "board") {
    if (config.workflow) {
      return {
        ok: false,
        issues: [
          { path: "workflow", message: "`workflow` extends the phases preset; a board is configured under `board`" },
        ],
      };
    }
    const { definitions, ledger, evidence_dir, handoffs_dir, issues_dir } = config.board;
    const overlap = renderOverlap(config, [definitions, ledger, evidence_dir, handoffs_dir, issues_dir]);
    if (overlap) return { ok: false, issues: [overlap] };
    return { ok: true, model: presetModel("board")(config) };
  }
  const built = workflowOf(config);
  if (!built.ok) return built;
  const overlap = renderOverlap(config, [built.workflow.def.tasksDir]);
  if (overlap) return { ok: false, issues: [overlap] };
  return { ok: true, model: presetModel("phases")(config, built.workflow) };
}

/**
 * Rendered files are derived and may be committed by anyone, so their folder must hold nothing
 * else: not the framework's `.github/`, not the task store.
 */
function renderOverlap(config: Config, store: readonly string[]): ConfigIssue | undefined {
  const root = renderRootOf(config);
  const inside = (a: string, b: string) => a === b || a.startsWith(`${b}/`);
  const clash = [".github", ...store].find((path) => inside(root, path) || inside(path, root));
  if (clash === undefined) return undefined;
  return {
    path: "render.path",
    message: `"${root}" overlaps ${clash}; rendered files need a folder of their own (default: docs/status)`,
  };
}

export function evaluate(config: Config, base: Snapshot, head: Snapshot, pr: PrContext): Report {
  const created = createModel(config);
  if (!created.ok) return configReport(created.issues);
  const findings = created.model.evaluate(base, head, pr);
  // A PR that edits the config is judged by the base config, but the new one must be valid.
  if (pr.files.some((file) => file.path === CONFIG_PATH && file.status !== "removed")) {
    findings.violations.push(...validateConfigFile(head));
  }
  return buildReport(findings, `pull request by ${pr.author}, ${pr.files.length} changed file(s)`);
}

export function audit(config: Config, snapshot: Snapshot): Report {
  const created = createModel(config);
  if (!created.ok) return configReport(created.issues);
  const findings = created.model.audit(snapshot);
  return buildReport(findings, `audit of ${snapshot.rev}, ${created.model.taskIds(snapshot).length} task(s)`);
}

/**
 * The files the bot commits to carry out a report's records on a revision (path → new content):
 * the one writer of recorded decisions. Throws on a config that cannot build a model.
 */
export function writeRecords(
  config: Config,
  snapshot: Snapshot,
  records: readonly BotRecord[],
  options: { now?: string } = {},
): Map<string, string> {
  const created = createModel(config);
  if (!created.ok) throw new Error(created.issues.map((issue) => issue.message).join("; "));
  return created.model.writeRecords(snapshot, records, options);
}

/** Problems of the config a PR proposes: its own YAML/schema errors and an unsound workflow. */
function validateConfigFile(head: Snapshot): Violation[] {
  const entry = head.files.get(CONFIG_PATH);
  if (!entry) return [];
  if (entry.kind !== "file" || entry.text === undefined) {
    return [
      violation("config-invalid", {
        path: CONFIG_PATH,
        message: `the new ${CONFIG_PATH} is not a readable text file`,
      }),
    ];
  }
  const result = parseConfig(entry.text);
  const created = result.ok ? createModel(result.config) : undefined;
  const issues = !result.ok ? result.issues : created && !created.ok ? locateIssues(entry.text, created.issues) : [];
  return issues.map((issue) =>
    violation("config-invalid", {
      path: CONFIG_PATH,
      ...(issue.line !== undefined && { line: issue.line }),
      message: `the new config is invalid at ${issue.path || "(root)"}: ${issue.message}`,
      hint: "This pull request is judged by the base branch's config; fix the new one before it lands.",
    }),
  );
}
