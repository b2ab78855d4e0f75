import { describe, expect, it } from "vitest";
import type { Report, Review } from "../../src/core/index.js";
import { approverLogins, reviewViews, workflowGraph } from "../../src/pages/data.js";
import { movePath, pullRequestPage, type PullRequestPageInput } from "../../src/pages/pull-request.js";
import { config } from "../helpers/memory.js";
import { HOSTILE, HOSTILE_ESCAPED, TOKEN, expectBalanced, expectSafe, svgsOf } from "./helpers.js";

const SHA = "0123456789abcdef0123456789abcdef01234567";

function report(extra: Partial<Report> = {}): Report {
  return {
    conclusion: "failure",
    summary: "failure: pull request; 1 violation(s), 1 pending approval(s)",
    transitions: [{ task: "t1", from: "design:awaiting_approval", to: "implement" }],
    violations: [
      {
        code: "artifact-missing",
        task: "t1",
        path: "tasks/t1/PLAN.md",
        line: 12,
        message: "PLAN.md is missing its summary",
        hint: "Write a summary under the title.",
      },
    ],
    pending: [
      {
        code: "approval-required",
        task: "t2",
        path: "tasks/t2/.state",
        line: 1,
        message: "t2 waits (spec_awaiting → plan): 0 of 1 approving review(s); not counted: bob wrote the change",
        hint: "Ask role:qa to approve the pull request; taskgate then records plan.",
        approvers: ["role:qa", "quinn"],
      },
    ],
    records: [
      {
        task: "t3",
        from: "review",
        to: "done",
        by: "quinn",
        kind: "approve",
        at: "2026-11-01T10:00:00Z",
        reviews: [{ by: "quinn", at: "2026-11-01T10:00:00Z" }],
      },
    ],
    ...extra,
  };
}

const REVIEWS: Review[] = [
  { user: { login: "quinn" }, state: "APPROVED", commit_id: SHA, submitted_at: "2026-11-01T10:00:00Z", body: "ok" },
  { user: { login: "bob" }, state: "APPROVED", commit_id: SHA, submitted_at: "2026-11-01T11:00:00Z", body: "" },
  { user: { login: "carol" }, state: "COMMENTED", commit_id: SHA, submitted_at: "2026-11-01T09:00:00Z", body: "hm" },
  { user: { login: "dave" }, state: "APPROVED", commit_id: SHA, submitted_at: "2026-11-01T08:00:00Z", body: "" },
  { user: { login: "dave" }, state: "CHANGES_REQUESTED", commit_id: SHA, submitted_at: "2026-11-01T09:30:00Z" },
];

function input(extra: Partial<PullRequestPageInput> = {}): PullRequestPageInput {
  const theReport = extra.report ?? report();
  return {
    owner: "acme",
    repo: "site",
    number: 42,
    headSha: SHA,
    title: "Plan t1",
    report: theReport,
    reviews: reviewViews(REVIEWS, theReport),
    workflow: workflowGraph(config()),
    ...extra,
  };
}

describe("pullRequestPage", () => {
  it("shows the conclusion, each move, problems, pending approvals, reviews and records", () => {
    const html = pullRequestPage(input());
    expect(html).toContain('<strong class="label state-failure">failure</strong>');
    expect(html).toContain(report().summary);
    expect(html).toMatch(/<td><code>t1<\/code><\/td><td>design:awaiting_approval<\/td><td>implement<\/td>/);
    expect(html).toContain("PLAN.md is missing its summary");
    expect(html).toContain("<strong>How to fix:</strong> Write a summary under the title.");
    expect(html).toContain(
      '<strong>Who may approve:</strong> <span class="mono">role:qa</span>, <span class="mono">quinn</span>',
    );
    expect(html).toMatch(/<td><code>t3<\/code><\/td><td>review<\/td><td>done<\/td><td>quinn<\/td><td>approve<\/td>/);
    for (const id of ["conclusion", "moves", "problems", "pending", "reviews", "records"]) {
      expect(html).toContain(`<section aria-labelledby="${id}"><h2 id="${id}">`);
    }
    expectSafe(html);
  });

  it("links each finding to its file and line on GitHub at the head, and the pull request itself", () => {
    const html = pullRequestPage(input());
    expect(html).toContain(
      `<a href="https://github.com/acme/site/blob/${SHA}/tasks/t1/PLAN.md#L12">tasks/t1/PLAN.md:12</a>`,
    );
    expect(html).toContain(`href="https://github.com/acme/site/blob/${SHA}/tasks/t2/.state#L1"`);
    expect(html).toContain('href="https://github.com/acme/site/pull/42"');
    const enterprise = pullRequestPage(input({ host: "ghe.example.com" }));
    expect(enterprise).toContain(`href="https://ghe.example.com/acme/site/blob/${SHA}/tasks/t1/PLAN.md#L12"`);
    expect(enterprise).not.toContain("https://github.com/");
    expect(html).toContain('<a href="/taskgate/acme/site">acme/site</a>');
  });

  it("names the people behind each approver role and team", () => {
    const withRoles = config('preset: phases\nroles:\n  qa: [quinn, "@acme/qa", "role:leads"]\n  leads: [lee]\n');
    const logins = approverLogins(withRoles, report(), { "@acme/qa": ["rita"] });
    expect(logins).toEqual({ "role:qa": ["quinn", "rita", "lee"] });
    const html = pullRequestPage(input({ approvers: logins }));
    expect(html).toContain(
      '<span class="mono">role:qa</span> (<a href="https://github.com/quinn">quinn</a>, <a href="https://github.com/rita">rita</a>, <a href="https://github.com/lee">lee</a>), <span class="mono">quinn</span>',
    );
    expect(pullRequestPage(input({ approvers: { "role:qa": [] } }))).toContain(
      '<span class="mono">role:qa</span> (nobody)',
    );
  });

  it("links nothing to GitHub for a repository that is not there, and says why a team stays by name", () => {
    const html = pullRequestPage(
      input({
        owner: "local",
        repo: "site",
        githubLinks: false,
        approvers: { "role:qa": ["quinn", "@acme/qa"] },
        teamNotes: ["The members of @acme/qa could not be listed: GitHub shows no team @acme/qa to taskgate."],
      }),
    );
    expectSafe(html);
    expect(html).not.toMatch(/href="https?:/);
    expect(html).not.toContain("undefined");
    expect(html).toContain("tasks/t1/PLAN.md:12");
    expect(html).toContain('<span class="mono">role:qa</span> (quinn, @acme/qa)');
    expect(html).toContain("The members of @acme/qa could not be listed");
    expect(html).not.toContain("The pull request on GitHub");
  });

  it("says whether each review counted and why not", () => {
    const views = reviewViews(REVIEWS, report());
    expect(views.map((view) => [view.login, view.counted])).toEqual([
      ["quinn", true],
      ["bob", false],
      ["carol", false],
      ["dave", false],
      ["dave", false],
    ]);
    expect(views[1]!.why).toBe("bob wrote the change");
    expect(views[2]!.why).toMatch(/comment/);
    expect(views[3]!.why).toBe("a later review by dave replaces it");
    expect(views[4]!.why).toBe("no gate waits on it at this head");
    const html = pullRequestPage(input());
    expect(html).toContain(
      '<span class="label counted">counted</span> decides a gate taskgate records<blockquote>ok</blockquote>',
    );
    expect(html).toContain('<span class="label not-counted">not counted</span> bob wrote the change');
  });

  it("shows a review by a deleted account without a profile link", () => {
    const reviews = reviewViews([{ user: null, state: "APPROVED", submitted_at: "2026-11-01T10:00:00Z" }], report());
    expect(reviews[0]).toMatchObject({
      login: null,
      counted: false,
      why: "GitHub names no reviewer (a deleted account)",
    });
    const html = pullRequestPage(input({ reviews }));
    expect(html).toContain("<td>(deleted account)</td><td>APPROVED</td>");
  });

  it("draws each moved task's path through the workflow, the path highlighted", () => {
    const workflow = workflowGraph(config());
    const path = movePath(workflow, { task: "t1", from: "design:awaiting_approval", to: "implement" });
    expect(path).toEqual(["design:awaiting_approval", "design:approved", "implement"]);
    const html = pullRequestPage(input());
    const [svg, ...others] = svgsOf(html);
    expect(others).toEqual([]);
    expect(svg).toMatch(
      /^<svg class="diagram" xmlns="http:\/\/www.w3.org\/2000\/svg" role="img" width="\d+" height="\d+" viewBox="0 0 \d+ \d+">/,
    );
    expectBalanced(svg!);
    expect(svg!.match(/<g class="state/g)).toHaveLength(workflow.states.length);
    const taken = [...svg!.matchAll(/<g class="state taken"><title>([^<]*)<\/title>/g)].map((match) => match[1]);
    expect(taken.sort()).toEqual([...path].sort());
    expect(svg!.match(/<line class="taken"/g)).toHaveLength(path.length - 1);
    expect(html).toContain(`<figcaption>t1: ${path.join(" → ")}</figcaption>`);
  });

  it("gives each diagram its own arrowhead, so no id repeats on the page", () => {
    const moves = [
      { task: "t1", from: null, to: "research" },
      { task: "t2", from: "implement", to: "bug_find" },
    ];
    const html = pullRequestPage(input({ report: report({ transitions: moves }) }));
    expect(svgsOf(html)).toHaveLength(2);
    const ids = [...html.matchAll(/\sid="([^"]+)"/g)].map((match) => match[1]);
    expect(new Set(ids).size).toBe(ids.length);
    expect(html).toContain('marker-end="url(#arrow-1)"');
    expect(html).toContain("<figcaption>t1: new → research</figcaption>");
  });

  it("renders hostile text in every field as text, and redacts a token", () => {
    const hostile = `${HOSTILE} ${TOKEN}`;
    const bad: Report = {
      conclusion: "action_required",
      summary: hostile,
      transitions: [{ task: hostile, from: hostile, to: null }],
      violations: [
        { code: "artifact-missing", task: hostile, path: `a/${hostile}`, line: 3, message: hostile, hint: hostile },
      ],
      pending: [{ code: "approval-required", task: hostile, message: hostile, hint: hostile, approvers: [hostile] }],
      records: [
        { task: hostile, from: hostile, to: hostile, by: hostile, kind: "reject", reason: hostile, at: hostile },
      ],
    };
    const reviews = reviewViews(
      [{ user: { login: hostile }, state: hostile, commit_id: hostile, submitted_at: hostile, body: hostile }],
      bad,
    );
    const html = pullRequestPage(
      input({
        report: bad,
        reviews,
        title: hostile,
        owner: hostile,
        repo: hostile,
        headSha: hostile,
        approvers: { [hostile]: [hostile] },
        withheld: hostile,
      }),
    );
    expectSafe(html);
    expect(html).toContain(HOSTILE_ESCAPED);
    expect(html).toContain("[redacted]");
    expect(html).not.toContain("<img");
    for (const svg of svgsOf(html)) expectBalanced(svg);
    // Path segments are encoded in links: nothing of the hostile path survives unencoded in an href.
    expect(html).toContain(
      'href="https://github.com/%3Cscript%3Ealert(1)%3C%2Fscript%3E%22onerror%3D%22alert(2)&#39;%20%3Cimg%20src%3Dx%20onerror%3Dalert(3)%3E%26amp%3B%20%5Bredacted%5D/',
    );
    expect(html).toContain(
      "/a/%3Cscript%3Ealert(1)%3C/script%3E%22onerror%3D%22alert(2)&#39;%20%3Cimg%20src%3Dx%20onerror%3Dalert(3)%3E%26amp%3B%20%5Bredacted%5D#L3",
    );
  });

  it("says so when nothing was judged", () => {
    const html = pullRequestPage(
      input({
        report: {
          conclusion: "neutral",
          summary: "neutral: no config",
          transitions: [],
          violations: [],
          pending: [],
          records: [],
        },
        reviews: [],
      }),
    );
    expect(html).toContain("Nothing judged");
    expect(html).toContain("The pull request moves no task.");
    expect(html).toContain("No problems.");
    expect(html).toContain("No reviews yet.");
    expect(svgsOf(html)).toEqual([]);
    expectSafe(html);
  });
});
