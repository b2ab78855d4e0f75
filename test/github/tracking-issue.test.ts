/**
 * The audit's tracking issue: taskgate's own is found by what GitHub enforces (the App's id, or the
 * token's login), never by the marker or the title alone; it is created, updated and closed with one
 * request each.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildReport, violation } from "../../src/core/index.js";
import type { IssueData } from "../../src/github/api.js";
import { auditIssueBody } from "../../src/github/summary.js";
import {
  AUDIT_LABEL,
  AUDIT_MARKER,
  findTrackingIssue,
  isTrackingIssue,
  trackIssue,
} from "../../src/github/tracking-issue.js";
import { isolate, nockedApi } from "../helpers/nock-api.js";

const net = isolate();
beforeEach(net.before);
afterEach(net.after);

const SHA = "c".repeat(40);
const APP = { appId: 7, login: "taskgate[bot]" };
const ACTION = { login: "github-actions[bot]" };
const ISSUES = "/repos/acme/widgets/issues";
const bot = { login: "taskgate[bot]", type: "Bot" };

const clean = buildReport({ violations: [], pending: [], transitions: [], records: [] }, "audit");
const dirty = buildReport(
  {
    violations: [violation("unauthorized-change", { path: "tasks/a/.state", message: "commit 1234567 changed it" })],
    pending: [],
    transitions: [],
    records: [],
  },
  "audit",
);

function issue(number: number, fields: Partial<IssueData> = {}): IssueData {
  return {
    number,
    state: "open",
    body: `${AUDIT_MARKER}\nold`,
    user: bot,
    performed_via_github_app: { id: 7 },
    ...fields,
  };
}

describe("which issue is taskgate's", () => {
  it("is its own issue with the marker: by the App's id, or by the token's login under the Action", () => {
    expect(isTrackingIssue(issue(1), APP)).toBe(true);
    // The marker, the label and even the bot's name in the title make nothing taskgate's.
    expect(isTrackingIssue(issue(2, { user: { login: "mallory" }, performed_via_github_app: null }), APP)).toBe(false);
    expect(isTrackingIssue(issue(3, { performed_via_github_app: { id: 99 } }), APP)).toBe(false);
    expect(isTrackingIssue(issue(4, { body: "no marker" }), APP)).toBe(false);
    const workflow = { login: "github-actions[bot]", type: "Bot" };
    expect(isTrackingIssue(issue(5, { user: workflow, performed_via_github_app: null }), ACTION)).toBe(true);
    expect(isTrackingIssue(issue(6, { user: { login: "mallory" }, performed_via_github_app: null }), ACTION)).toBe(
      false,
    );
  });

  it("takes its own open issue, never the older one someone else opened with the marker", async () => {
    const github = nockedApi({ appId: 7 });
    const forged = issue(1, { user: { login: "mallory" }, performed_via_github_app: null });
    github.answer("GET", ISSUES, 200, [
      forged,
      issue(4, { state: "closed" }),
      issue(9),
      { ...issue(10), pull_request: {} },
    ]);
    expect(await findTrackingIssue(github.api, APP)).toEqual({ number: 9, open: true, body: `${AUDIT_MARKER}\nold` });
    expect(github.requests).toEqual([`GET ${ISSUES}`]);
  });
});

describe("trackIssue", () => {
  const input = (report = dirty) => ({ branch: "main", sha: SHA, report, self: APP });

  it("opens an issue with the label when something is wrong and none of its own exists", async () => {
    const github = nockedApi({ appId: 7 });
    const forged = issue(1, { user: { login: "mallory" }, performed_via_github_app: null });
    github.answer("GET", ISSUES, 200, [forged]);
    github.answer("POST", ISSUES, 201, { number: 2 });
    expect(await trackIssue(github.api, input())).toBe("created");
    expect(github.requests).toEqual([`GET ${ISSUES}`, `POST ${ISSUES}`]);
    expect(github.bodies[1]).toMatchObject({ title: "taskgate audit: 1 problem(s) on main", labels: [AUDIT_LABEL] });
  });

  it("opens nothing when the branch is clean, and leaves an unchanged issue alone", async () => {
    const github = nockedApi({ appId: 7 });
    github.answer("GET", ISSUES, 200, []);
    expect(await trackIssue(github.api, input(clean))).toBe("none");
    github.answer("GET", ISSUES, 200, [issue(3, { body: auditIssueBody(dirty, "main", SHA) })]);
    expect(await trackIssue(github.api, input())).toBe("unchanged");
    expect(github.requests).toEqual([`GET ${ISSUES}`, `GET ${ISSUES}`]);
  });

  it("updates its own issue in place, and closes it once the branch is clean", async () => {
    const github = nockedApi({ appId: 7 });
    github.answer("GET", ISSUES, 200, [issue(3)]);
    github.answer("PATCH", `${ISSUES}/3`, 200, { number: 3 });
    expect(await trackIssue(github.api, input())).toBe("updated");
    github.answer("GET", ISSUES, 200, [issue(3)]);
    github.answer("PATCH", `${ISSUES}/3`, 200, { number: 3 });
    expect(await trackIssue(github.api, input(clean))).toBe("closed");
    expect(github.requests).toEqual([`GET ${ISSUES}`, `PATCH ${ISSUES}/3`, `GET ${ISSUES}`, `PATCH ${ISSUES}/3`]);
    expect(github.bodies[1]).toMatchObject({ state: "open" });
    expect(github.bodies[3]).toMatchObject({ state: "closed", title: "taskgate audit: main is clean" });
  });

  it("never edits an issue someone else opened with the marker", async () => {
    const github = nockedApi({ appId: 7 });
    github.answer("GET", ISSUES, 200, [issue(3, { performed_via_github_app: { id: 99 } })]);
    expect(await trackIssue(github.api, input(clean))).toBe("none");
    expect(github.requests).toEqual([`GET ${ISSUES}`]);
  });
});
