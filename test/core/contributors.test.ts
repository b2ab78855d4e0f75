/**
 * Who wrote the work cannot approve it: commit authors, committers and `Co-authored-by:` co-authors,
 * by GitHub login where GitHub links one, else by git name and e-mail.
 */
import { describe, expect, it } from "vitest";
import { evaluate } from "../../src/core/evaluate.js";
import { coAuthorsOf, noreplyLogin, parseIdentity, trailersOf } from "../../src/core/kernel/trailers.js";
import type { Report } from "../../src/core/kernel/types.js";
import { approve, botStep, config, prHistory, task, type PrSpec, type Step } from "../helpers/memory.js";

const START = task("t1", "research", { "SPEC.md": "# Spec\nwhat and why\n" });
const AWAIT = { "tasks/t1/.state": "research:awaiting_approval\n" };
const phases = config();
const allowContributor = config("preset: phases\napprovals:\n  allow_contributor: true\n");
const allowAuthor = config("preset: phases\napprovals:\n  allow_author: true\n");

/** The PR author carol moves t1 to awaiting approval in c1 (with `extra`); `reviewer` approves c1. */
function run(extra: Partial<Step>, reviewer = "bob", conf = phases, spec: PrSpec = {}): Report {
  const steps: Step[] = [{ sha: "c1", changes: AWAIT, ...extra }];
  const { base, head, pr } = prHistory(START, steps, {
    reviews: [approve(reviewer, "c1")],
    permissions: { [reviewer]: "write" },
    ...spec,
  });
  return evaluate(conf, base, head, pr);
}

const counted = (report: Report) => report.records.length === 1;
const refusal = (report: Report) => report.pending[0]?.message ?? "";

describe("committers", () => {
  it("bars a committer GitHub links, unless allow_contributor", () => {
    const report = run({ committer: "bob" });
    expect(counted(report)).toBe(false);
    expect(refusal(report)).toContain("bob committed c1");
    expect(counted(run({ committer: "bob" }, "bob", allowContributor))).toBe(true);
    expect(counted(run({ committer: "erin" }))).toBe(true);
  });

  it("bars an unlinked git committer by name, case-insensitively", () => {
    const report = run({ committer: null, gitCommitter: { name: "Bob", email: "bob@example.com" } });
    expect(counted(report)).toBe(false);
    expect(refusal(report)).toContain("bob committed c1");
  });

  it("takes GitHub's own committer for nobody", () => {
    const gitHub = { name: "GitHub", email: "noreply@github.com" };
    expect(counted(run({ committer: "web-flow", gitCommitter: gitHub }, "web-flow"))).toBe(true);
    expect(counted(run({ committer: null, gitCommitter: gitHub }, "github"))).toBe(true);
    // Only GitHub's address makes the name GitHub nobody.
    expect(counted(run({ committer: null, gitCommitter: { name: "GitHub", email: "me@example.com" } }, "github"))).toBe(
      false,
    );
  });

  it("does not bar the pull request's author as a committer (allow_author judges them)", () => {
    expect(counted(run({ committer: "Carol" }, "carol", allowAuthor))).toBe(true);
    expect(refusal(run({ committer: "carol" }, "carol"))).toContain("carol is the author of the pull request");
  });

  it("takes an unlinked committer with the linked author's e-mail for the author", () => {
    const sameAddress = { gitEmail: "carol@example.com", committer: null };
    expect(counted(run({ ...sameAddress, gitCommitter: { name: "bob", email: "Carol@example.com" } }))).toBe(true);
    expect(counted(run({ ...sameAddress, gitCommitter: { name: "bob", email: "bob@example.com" } }))).toBe(false);
  });

  it("skips bot commits entirely, whoever they name as co-authors", () => {
    const record = {
      "tasks/t1/.state": "research:approved\n",
      "tasks/t1/.state.approvals": "research:approved|2026-11-01T10:00:00Z|bob\n",
    };
    const steps: Step[] = [
      { sha: "c1", changes: AWAIT },
      botStep("c2", record, { committer: "web-flow", coAuthors: [{ login: "bob" }] }),
    ];
    const { base, head, pr } = prHistory(START, steps, {
      reviews: [approve("bob", "c1")],
      permissions: { bob: "write" },
    });
    expect(evaluate(phases, base, head, pr).conclusion).toBe("success");
  });
});

it("a commit GitHub attributes to the bot but a person committed is not the bot's: its record is forged", () => {
  const record = {
    "tasks/t1/.state": "research:approved\n",
    "tasks/t1/.state.approvals": "research:approved|2026-11-01T10:00:00Z|bob\n",
  };
  for (const committer of ["mallory", null]) {
    const steps: Step[] = [{ sha: "c1", changes: AWAIT }, botStep("c2", record, { committer })];
    const { base, head, pr } = prHistory(START, steps, {
      reviews: [approve("bob", "c1")],
      permissions: { bob: "write" },
    });
    const report = evaluate(phases, base, head, pr);
    expect(report.conclusion).toBe("failure");
    expect(report.violations.map((item) => item.code)).toContain("approval-forged");
  }
});

describe("co-authors", () => {
  it("bars a co-author GitHub links, unless allow_contributor", () => {
    const coAuthors = [{ login: "Bob", name: "Robert", email: "robert@example.com" }];
    const report = run({ coAuthors });
    expect(counted(report)).toBe(false);
    expect(refusal(report)).toContain("bob is a co-author of c1 (Co-authored-by)");
    expect(counted(run({ coAuthors }, "bob", allowContributor))).toBe(true);
  });

  it("bars an unlinked co-author by name", () => {
    const report = run({ coAuthors: [{ login: null, name: "BOB", email: "bob@example.com" }] });
    expect(counted(report)).toBe(false);
    expect(refusal(report)).toContain("bob is a co-author of c1");
  });

  it("bars an unlinked co-author by the login a GitHub no-reply address encodes", () => {
    for (const email of ["123+bob@users.noreply.github.com", "Bob@users.noreply.github.com"]) {
      expect(counted(run({ coAuthors: [{ login: null, name: "Robert Builder", email }] }))).toBe(false);
    }
    expect(counted(run({ coAuthors: [{ login: null, name: "Robert Builder", email: "bob@example.com" }] }))).toBe(true);
  });

  it("does not bar the pull request's author as a co-author by login; by name, nobody is exempt", () => {
    expect(counted(run({ coAuthors: [{ login: "carol" }] }, "carol", allowAuthor))).toBe(true);
    expect(counted(run({ coAuthors: [{ login: null, name: "carol" }] }, "carol", allowAuthor))).toBe(false);
  });

  it("names the strongest contribution: authoring before committing before co-authoring", () => {
    const steps: Step[] = [
      { sha: "c0", author: "bob", changes: { "tasks/t1/SPEC.md": "# Spec\nby bob\n" } },
      { sha: "c1", changes: AWAIT, committer: "bob", coAuthors: [{ login: "bob" }] },
    ];
    const { base, head, pr } = prHistory(START, steps, {
      reviews: [approve("bob", "c1")],
      permissions: { bob: "write" },
    });
    expect(refusal(evaluate(phases, base, head, pr))).toContain("bob pushed commits to the pull request (c0)");
  });
});

describe("Co-authored-by trailers", () => {
  it("reads the trailers of the last paragraph, any case, unfolded, CRLF or not", () => {
    const message =
      "Title\n\nBody mentions\nCo-authored-by: Not Me <no@example.com>\n\n" +
      "Co-authored-by: Bob B <bob@example.com>\nco-AUTHORED-by : Eve <12+eve@users.noreply.github.com>\n" +
      "Co-authored-by: Long\n  Name <long@example.com>\nReviewed-by: X <x@example.com>\n";
    expect(coAuthorsOf(message)).toEqual([
      { name: "Bob B", email: "bob@example.com" },
      { name: "Eve", email: "12+eve@users.noreply.github.com" },
      { name: "Long Name", email: "long@example.com" },
    ]);
    expect(coAuthorsOf(message.replace(/\n/g, "\r\n"))).toEqual(coAuthorsOf(message));
  });

  it("finds no trailers in the title, or in a last paragraph that is mostly prose", () => {
    expect(coAuthorsOf("Co-authored-by: Bob <bob@example.com>\n")).toEqual([]);
    expect(coAuthorsOf("Title\n\nCo-authored-by: Bob <bob@example.com>\nand some prose\n")).toEqual([]);
    expect(coAuthorsOf("Title\n\nCo-authored-by: Bob <bob@example.com>\n\nprose last\n")).toEqual([]);
    // A git-generated trailer lets up to three prose lines per trailer stand in the paragraph.
    expect(coAuthorsOf("Title\n\nSigned-off-by: A <a@x.io>\nprose\nCo-authored-by: Bob <bob@example.com>\n")).toEqual([
      { name: "Bob", email: "bob@example.com" },
    ]);
  });

  it("ignores malformed co-authors and comment lines", () => {
    const message =
      "Title\n\nCo-authored-by: bob\nCo-authored-by: <>\nCo-authored-by: A <a b@x.io>\n# Co-authored-by: C <c@x.io>\n" +
      "Co-authored-by: <only@example.com>\n";
    expect(coAuthorsOf(message)).toEqual([{ name: null, email: "only@example.com" }]);
    expect(trailersOf(message).map((trailer) => trailer.value)).toEqual([
      "bob",
      "<>",
      "A <a b@x.io>",
      "<only@example.com>",
    ]);
    expect(parseIdentity("Bob <bob@example.com> trailing")).toBeUndefined();
  });

  it("reads the login of a GitHub no-reply address only", () => {
    expect(noreplyLogin("12345+bob-b@users.noreply.github.com")).toBe("bob-b");
    expect(noreplyLogin("bob@USERS.noreply.github.com")).toBe("bob");
    expect(noreplyLogin("41898282+github-actions[bot]@users.noreply.github.com")).toBe("github-actions[bot]");
    expect(noreplyLogin("bob@example.com")).toBeUndefined();
    expect(noreplyLogin("bob@users.noreply.github.com.evil.io")).toBeUndefined();
    expect(noreplyLogin(null)).toBeUndefined();
  });
});
