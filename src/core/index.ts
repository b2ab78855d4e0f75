/**
 * taskgate's public API: the pure core (`evaluate`, `audit`, `writeRecords`), the config, the use
 * cases over a repository port, and the shapes they exchange. Adapters (git, GitHub) implement
 * `TaskRepository`; everything here is free of I/O except through that port.
 */
export { audit, buildReport, createModel, evaluate, neutralReport, writeRecords } from "./evaluate.js";
export {
  ConfigSchema,
  defaultConfig,
  parseConfig,
  readLimits,
  type Config,
  type ConfigIssue,
  type ConfigResult,
} from "./kernel/config.js";
export { CONFIG_PATH } from "./kernel/config-path.js";
export {
  ConfigError,
  MAX_REVISIONS,
  auditRevision,
  buildPrContext,
  checkPullRequest,
  explainTask,
  likelyAuditScope,
  loadConfig,
  renderStatus,
  wantedRevisions,
  type CheckRequest,
  type PrInput,
  type PrInputCommit,
} from "./service.js";
export {
  RefNotFoundError,
  RepositoryError,
  type ReadLimits,
  type SnapshotScope,
  type TaskRepository,
} from "./kernel/port.js";
export { isBotCommit, isBotLogin, reviewKey } from "./kernel/approval.js";
export { coAuthorsOf, noreplyLogin, parseIdentity, type GitIdentity } from "./kernel/trailers.js";
export { VIOLATIONS, VIOLATION_CODES, violation, type ViolationCode } from "./kernel/violations.js";
export { redactSecrets, scanSecrets, type SecretFinding } from "./kernel/secrets.js";
export type { Explanation, NextStep, WorkflowModel } from "./kernel/model.js";
export type * from "./kernel/types.js";
export { configReport } from "./kernel/report.js";
export { botLogins } from "./kernel/config.js";
export { redactDeep } from "./kernel/secrets.js";
export { folderOf, limitFor, scopeCovers, scopeMatcher } from "./kernel/port.js";
export { parseJsonFile } from "./kernel/json.js";
export { principalMatcher } from "./kernel/approval.js";
export { renderRootOf } from "./kernel/paths.js";
export { fingerprint, mermaidLabel, table } from "./kernel/markdown.js";
export { AuthoringRefusal, type Authored, type FileChange } from "./kernel/change.js";
export { followUpFiles, recordChanges, statusIndexPath, type FileChanges, type FollowUpFiles } from "./followups.js";
export type { RenderResult } from "./service.js";
export { canEdit, moveTask, newTask, taskScope, upgradeTasks, type PhasesContext } from "./phases/authoring.js";
export {
  claimTask,
  escalateTask,
  listTasks,
  nextTask,
  reassignTask,
  releaseExternal,
  submitTask,
  taskPacket,
  type BoardContext,
  type GivenFile,
  type TaskRow,
} from "./board/authoring.js";
export { STATUSES } from "./board/formats.js";
export { isLogin } from "./board/owners.js";
export { configOf, judgePullRequest, linkCoAuthors, type Judgement, type Loaded } from "./service.js";
export type { People, PeopleRequest } from "./kernel/port.js";
export { staleness } from "./kernel/stale.js";
export {
  BINARY_CONTENT,
  BINARY_SNIFF_BYTES,
  DEFAULT_MAX_FILE_BYTES,
  MODE_FILE,
  MODE_SUBMODULE,
  MODE_SYMLINK,
  HEAD_BYTES,
  bytesBlank,
  bytesLookBinary,
  classifyFile,
  textLooksBinary,
  type FileFacts,
  type StoredText,
} from "./kernel/files.js";
export { JOURNAL_FILE, LOCAL_FILES, LOCK_FILE, UNLOCK_LOG } from "./kernel/local-files.js";
export { workflowOf } from "./phases/preset.js";
export { BOARD_EDGES, type Definition, type LedgerEntry } from "./board/formats.js";
export { entryOf, readBoard, type Board } from "./board/reader.js";
export { APPROVALS_FILE, STATE_FILE } from "./phases/reader.js";
export {
  boardCanEdit,
  boardEditor,
  type ActingOwner,
  type BoardEditAnswer,
  type BoardEditor,
} from "./board/authoring.js";
export type { ScopeAnswer } from "./phases/authoring.js";
