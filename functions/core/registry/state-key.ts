import type { WorkspaceConfig } from './model.js';

/** Where the S3 backend keeps a workspace's state: non-default CLI workspaces live under a prefix. */
export function stateObjectKey(workspace: Pick<WorkspaceConfig, 'backend'>): string {
  const { key, workspace: cliWorkspace, workspaceKeyPrefix } = workspace.backend;
  if (!cliWorkspace || cliWorkspace === 'default') return key;
  return `${workspaceKeyPrefix ?? 'env:'}/${cliWorkspace}/${key}`;
}
